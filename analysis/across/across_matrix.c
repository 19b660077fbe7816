// SPDX-License-Identifier: MIT
/* The role matrix across hosts: built from every host's rows, freed, and written as CSV for plot's heat map and decision. */
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

void rp_across_heat_csv(FILE *o, const struct host *hosts, size_t nh)
{
	struct fleet f;
	char why[160];

	if (rp_across_build(&f, hosts, nh, true)) {
		rp_across_free(&f);
		return;
	}
	fputs("label,emulated,current_role,role,relative_ns,now\n", o);
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

			if (!role_shown(&f, r))
				continue;
			rg_csv_put_field(o, f.h[i]->name);
			fprintf(o, ",%d,%s,", f.h[i]->emulated, cur ? cur : "");
			rg_csv_put_field(o, f.roles[r]);
			put_d(o, x->r ? x->k.v - base : NAN);
			fprintf(o, ",%d\n", x->r && x->r == now);	/* the current design's own row */
		}
	}
	rp_across_free(&f);
}

void rp_across_decision_csv(FILE *o, const struct host *hosts, size_t nh)
{
	fputs("label,emulated,current_role,current_guard,suite,role,guard,change_ns,lo_ns,hi_ns\n", o);
	for (size_t i = 0; i < nh; i++) {
		struct decision d;

		if (!rp_across_decide(&hosts[i], &d))
			continue;
		for (size_t k = 0; k < d.n; k++) {
			rg_csv_put_field(o, hosts[i].name);
			fprintf(o, ",%d,%s,", hosts[i].emulated, d.role);
			rg_csv_put_field(o, rg_row_s(d.cur, RG_COL_guard));
			fprintf(o, ",%s,%s,", d.suite, d.c[k].role);
			rg_csv_put_field(o, rg_row_s(d.c[k].r, RG_COL_guard));
			put_d(o, d.c[k].v);
			put_d(o, d.c[k].lo);
			put_d(o, d.c[k].hi);
			fputc('\n', o);
		}
	}
}

int rp_across_heat_file(const char *heat, const char *decision, const struct rg_rows *const *rows,
		       size_t n)
{
	struct input *in = calloc(n ? n : 1, sizeof(*in));
	struct host *hosts = NULL;
	size_t nh = 0;
	char err[256];
	FILE *o, *d = NULL;
	int ret = -1;

	if (!in)
		return -1;
	for (size_t i = 0; i < n; i++) {
		in[i].rows = *rows[i];	/* borrowed: never freed here */
		in[i].version = rows[i]->n ? rg_row_i(&rows[i]->v[0], RG_COL_schema_version) : 0;
	}
	o = fopen(heat, "w");
	if (o)
		d = fopen(decision, "w");
	if (d && !rp_group_hosts(in, n, &hosts, &nh, err, sizeof(err))) {
		rp_across_heat_csv(o, hosts, nh);
		rp_across_decision_csv(d, hosts, nh);
		ret = ferror(o) || ferror(d) ? -1 : 0;
	}
	if (o && fclose(o))
		ret = -1;
	if (d && fclose(d))
		ret = -1;
	rp_hosts_free(hosts, nh);
	free(in);
	return ret;
}
