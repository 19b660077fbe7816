// SPDX-License-Identifier: MIT
/* The role matrix across hosts: built from every host's rows, freed, and handed to plot as JSON for its heat map and decision. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"
#include "across.h"

static void add_role(struct fleet *f, const char *role, size_t *cap)
{
	for (size_t i = 0; i < f->nroles; i++)
		if (!strcmp(f->roles[i], role))
			return;
	if (f->nroles == MAX_ROLES) {
		f->more_roles++;	/* counted, not shown: keeps a hostile file linear */
		return;
	}
	if (f->nroles == *cap) {
		void *p = realloc(f->roles, (*cap ? *cap * 2 : 32) * sizeof(*f->roles));

		if (!p)
			return;
		f->roles = p;
		*cap = *cap ? *cap * 2 : 32;
	}
	snprintf(f->roles[f->nroles++], sizeof(f->roles[0]), "%s", role);
}

static struct cost cost_in_cycles(const struct rg_row *r, const struct cost *k, double *lo, double *hi)
{
	double ref = rg_row_d(r, RG_COL_ref_ns_per_cycle);
	struct cost c = *k;

	if (isnan(ref) || ref <= 0) {
		c.v = c.lo = c.hi = NAN;
	} else {
		c.v /= ref;
		c.lo /= ref;
		c.hi /= ref;
	}
	*lo = c.lo;
	*hi = c.hi;
	return c;
}

/* Build the matrix: every one-thread user pair row of each host, by role. 0 or -1 (out of memory). */
int rp_across_build(struct fleet *f, const struct host *hosts, size_t nh, bool allow_emulated)
{
	size_t cap = 0;

	memset(f, 0, sizeof(*f));
	f->h = calloc(nh ? nh : 1, sizeof(*f->h));
	if (!f->h)
		return -1;
	for (size_t i = 0; i < nh; i++) {
		if (hosts[i].emulated && !allow_emulated) {
			size_t l = strlen(f->left);

			snprintf(f->left + l, sizeof(f->left) - l, "%s%s (virt: %s)", l ? ", " : "",
				 hosts[i].name, hosts[i].virt);
			continue;
		}
		f->h[f->nh++] = &hosts[i];
	}
	/* Known roles first, in their order, then any other in order of appearance. */
	for (size_t i = 0; rp_role_order[i]; i++)
		if (strcmp(rp_role_order[i], "n/a"))
			add_role(f, rp_role_order[i], &cap);
	for (size_t i = 0; i < f->nh; i++)
		for (size_t k = 0; k < f->h[i]->n; k++) {
			const struct rg_row *r = f->h[i]->rows[k];
			const char *list = rg_row_role(r, NULL);

			for (const char *p = list; rp_is_pair1(r) && p && *p; ) {
				const char *e = strchr(p, ';');
				char one[48];

				snprintf(one, sizeof(one), "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
				if (*one && strcmp(one, "n/a"))
					add_role(f, one, &cap);
				p = e ? e + 1 : NULL;
			}
		}
	f->cells = calloc(f->nroles * f->nh + 1, sizeof(*f->cells));
	if (!f->cells)
		return -1;
	for (size_t r = 0; r < f->nroles; r++)
		for (size_t i = 0; i < f->nh; i++) {
			struct cell *c = cell_at(f, r, i);

			c->r = rp_by_role(f->h[i], f->roles[r]);
			c->cyc = c->cyc_lo = c->cyc_hi = NAN;
			if (!c->r)
				continue;
			c->k = rp_cost_of(f->h[i], c->r);
			c->cyc = cost_in_cycles(c->r, &c->k, &c->cyc_lo, &c->cyc_hi).v;
			f->any_cycles |= !isnan(c->cyc);
		}
	return 0;
}

void rp_across_free(struct fleet *f)
{
	free(f->h);
	free(f->roles);
	free(f->cells);
}

static void put_d(FILE *o, double v)
{
	if (isnan(v))
		fputs(",", o);
	else
		fprintf(o, ",%.6g", v);
}

void rp_across_csv(FILE *o, const struct host *hosts, size_t nh, bool allow_emulated)
{
	struct fleet f;
	char why[160];

	if (rp_across_build(&f, hosts, nh, allow_emulated)) {
		rp_across_free(&f);
		return;
	}
	fputs("host,label,arch,cpu_model,kernel,emulated,current_role,role,guard,delta_ns,ci_lo,ci_hi,"
	      "delta_cycles,cycles_lo,cycles_hi\n", o);
	for (size_t r = 0; r < f.nroles; r++) {
		if (!role_shown(&f, r))
			continue;
		for (size_t i = 0; i < f.nh; i++) {
			const struct cell *x = cell_at(&f, r, i);
			const char *cur = rp_across_current_role(f.h[i], why, sizeof(why));
			const char *s[] = { f.h[i]->hostname, f.h[i]->name, f.h[i]->arch, f.h[i]->model,
					    f.h[i]->kernel };

			for (size_t k = 0; k < 5; k++) {
				rg_csv_put_field(o, s[k]);
				fputc(',', o);
			}
			fprintf(o, "%d,%s,%s,", f.h[i]->emulated, cur ? cur : "", f.roles[r]);
			rg_csv_put_field(o, x->r ? rg_row_s(x->r, RG_COL_guard) : "");
			put_d(o, x->r ? x->k.v : NAN);
			put_d(o, x->r ? x->k.lo : NAN);
			put_d(o, x->r ? x->k.hi : NAN);
			put_d(o, x->cyc);
			put_d(o, x->cyc_lo);
			put_d(o, x->cyc_hi);
			fputc('\n', o);
		}
	}
	rp_across_free(&f);
}

/* A name as JSON text: invalid UTF-8 (a file name's bytes) as U+FFFD, never a NULL. */
json_t *rp_json_text(const char *s)
{
	json_t *j = json_string(s ? s : "");
	size_t n, k = 0;
	char *buf;

	if (j)
		return j;
	n = strlen(s);
	buf = malloc(3 * n + 1);
	if (!buf)
		return json_string("");
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
			     (*p & 0xf8) == 0xf0 ? 4 : 0;
		size_t i = 1;

		while (len && i < len && (p[i] & 0xc0) == 0x80)
			i++;
		json_t *t = len && i == len ? json_stringn((const char *)p, len) : NULL;

		if (t) {	/* a valid sequence (jansson checks overlong forms and surrogates) */
			json_decref(t);
			memcpy(buf + k, p, len);
			k += len;
			p += len;
		} else {
			memcpy(buf + k, "\xef\xbf\xbd", 3);
			k += 3;
			p++;
		}
	}
	j = json_stringn(buf, k);
	free(buf);
	return j ? j : json_string("");
}

/* A value as JSON: null when it is not a number, else rounded to digits significant digits. */
json_t *rp_json_num(double v, int digits)
{
	char b[64];

	if (!isfinite(v))
		return json_null();
	snprintf(b, sizeof(b), "%.*g", digits, v);
	return json_real(strtod(b, NULL));
}

/* The heat map's cells: per host and shown role, its value relative to the current design. */
static json_t *heat_json(const struct host *hosts, size_t nh)
{
	json_t *a = json_array();
	struct fleet f;
	char why[160];

	if (rp_across_build(&f, hosts, nh, true)) {
		rp_across_free(&f);
		return a;
	}
	for (size_t i = 0; i < f.nh; i++) {
		const char *cur = rp_across_current_role(f.h[i], why, sizeof(why));
		const struct rg_row *now = NULL;
		double base = NAN;

		for (size_t r = 0; cur && r < f.nroles; r++)
			if (!strcmp(f.roles[r], cur) && cell_at(&f, r, i)->r) {
				base = cell_at(&f, r, i)->k.v;
				now = cell_at(&f, r, i)->r;
			}
		for (size_t r = 0; r < f.nroles; r++) {
			const struct cell *x = cell_at(&f, r, i);
			json_t *o;

			if (!role_shown(&f, r))
				continue;
			o = json_object();
			json_object_set_new(o, "label", rp_json_text(f.h[i]->name));
			json_object_set_new(o, "emulated", json_boolean(f.h[i]->emulated));
			json_object_set_new(o, "current_role", rp_json_text(cur ? cur : ""));
			json_object_set_new(o, "role", rp_json_text(f.roles[r]));
			json_object_set_new(o, "relative_ns", rp_json_num(x->r ? x->k.v - base : NAN, 6));
			/* the current design's own row */
			json_object_set_new(o, "now", json_boolean(x->r && x->r == now));
			json_array_append_new(a, o);
		}
	}
	rp_across_free(&f);
	return a;
}

/* The decision per host: each candidate's change against the current design. */
static json_t *decision_json(const struct host *hosts, size_t nh)
{
	json_t *a = json_array();

	for (size_t i = 0; i < nh; i++) {
		struct decision d;

		if (!rp_across_decide(&hosts[i], &d))
			continue;
		for (size_t k = 0; k < d.n; k++) {
			json_t *o = json_object();

			json_object_set_new(o, "label", rp_json_text(hosts[i].name));
			json_object_set_new(o, "emulated", json_boolean(hosts[i].emulated));
			json_object_set_new(o, "current_role", rp_json_text(d.role));
			json_object_set_new(o, "current_guard", rp_json_text(rg_row_s(d.cur, RG_COL_guard)));
			json_object_set_new(o, "suite", rp_json_text(d.suite));
			json_object_set_new(o, "role", rp_json_text(d.c[k].role));
			json_object_set_new(o, "guard", rp_json_text(rg_row_s(d.c[k].r, RG_COL_guard)));
			json_object_set_new(o, "change_ns", rp_json_num(d.c[k].v, 6));
			json_object_set_new(o, "lo_ns", rp_json_num(d.c[k].lo, 6));
			json_object_set_new(o, "hi_ns", rp_json_num(d.c[k].hi, 6));
			json_array_append_new(a, o);
		}
	}
	return a;
}

int rp_across_plot_json(json_t *doc, const struct rg_rows *const *rows, size_t n)
{
	struct input *in = calloc(n ? n : 1, sizeof(*in));
	struct host *hosts = NULL;
	size_t nh = 0;
	char err[256];
	int ret = -1;

	if (!in)
		return -1;
	for (size_t i = 0; i < n; i++) {
		in[i].rows = *rows[i];	/* borrowed: never freed here */
		in[i].version = rows[i]->n ? rg_row_i(&rows[i]->v[0], RG_COL_schema_version) : 0;
	}
	if (!rp_group_hosts(in, n, &hosts, &nh, err, sizeof(err))) {
		json_object_set_new(doc, "heat", heat_json(hosts, nh));
		json_object_set_new(doc, "decision", decision_json(hosts, nh));
		ret = 0;
	}
	rp_hosts_free(hosts, nh);
	free(in);
	return ret;
}
