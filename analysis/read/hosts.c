// SPDX-License-Identifier: MIT
/* `rgbench report`'s host identity: rows grouped by machine (name, arch, CPU), repeated rows reported, labels that tell machines apart, a key index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/env.h"
#include "rg/results.h"

static const enum rg_col id_cols[] = {
	RG_COL_host, RG_COL_arch, RG_COL_cpu_vendor, RG_COL_cpu_model, RG_COL_cpu_part,
};

int rp_host_id_cmp(const struct rg_row *a, const struct rg_row *b)
{
	int d;

	for (size_t i = 0; i < sizeof(id_cols) / sizeof(id_cols[0]); i++)
		if ((d = strcmp(rg_row_s(a, id_cols[i]), rg_row_s(b, id_cols[i]))))
			return d;
	return 0;
}

bool rp_row_of_host(const struct host *h, const struct rg_row *r)
{
	return !strcmp(rg_row_s(r, RG_COL_host), h->hostname) && !strcmp(rg_row_s(r, RG_COL_arch), h->arch) &&
	       !strcmp(rg_row_s(r, RG_COL_cpu_vendor), h->vendor) &&
	       !strcmp(rg_row_s(r, RG_COL_cpu_model), h->model) &&
	       !strcmp(rg_row_s(r, RG_COL_cpu_part), h->part);
}

/* A row and where it came from: its input and its place in reading order. */
struct ref {
	const struct rg_row *r;
	size_t in, order;
};

static int cmp_ref(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;
	int d = rp_host_id_cmp(a->r, b->r);

	if (!d)
		d = rg_row_key_cmp(a->r, b->r);
	return d ? d : (a->order > b->order) - (a->order < b->order);
}

static int cmp_order(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;

	return (a->order > b->order) - (a->order < b->order);
}

static int cmp_row_ptr_key(const void *pa, const void *pb)
{
	const struct rg_row *a = *(const struct rg_row *const *)pa, *b = *(const struct rg_row *const *)pb;
	int d = rg_row_key_cmp(a, b);

	/* rows of one host never share a key: the order is total */
	return d;
}

/* Count a row of file dropped that file kept also holds. 0 or -1. */
static int add_dup(struct host *h, const struct rg_row *kept, const struct rg_row *dropped)
{
	struct dup *v;

	h->ndup++;
	for (size_t i = 0; i < h->ndups; i++)
		if (h->dups[i].kept == kept->file && h->dups[i].dropped == dropped->file) {
			h->dups[i].n++;
			return 0;
		}
	v = realloc(h->dups, (h->ndups + 1) * sizeof(*v));
	if (!v)
		return -1;
	h->dups = v;
	v[h->ndups++] = (struct dup){ kept->file, dropped->file, kept, dropped, 1 };
	return 0;
}

static void add_kernel(struct host *h, const char *k)
{
	size_t l = strlen(h->kernels);
	const char *p = h->kernels;

	/* a whole entry of the ", "-separated list */
	while ((p = strstr(p, k))) {
		if ((p == h->kernels || p[-1] == ' ') && (p[strlen(k)] == ',' || !p[strlen(k)]))
			return;
		p++;
	}
	snprintf(h->kernels + l, sizeof(h->kernels) - l, "%s%s", l ? ", " : "", *k ? k : "?");
}

/* Fill h from its refs v[0..n) (sorted by key, then reading order). 0 or -1. */
static int make_host(struct host *h, struct ref *v, size_t n, const struct input *in)
{
	const struct rg_row *r0 = v[0].r, *kernel_row = NULL;
	size_t k = 0, run = 0;
	bool all_emulated = true;

	/* Cut to the buffers on a character boundary: a long name stays valid UTF-8. */
	rg_str_printable(h->hostname, sizeof(h->hostname), rg_row_s(r0, RG_COL_host));
	rg_str_printable(h->arch, sizeof(h->arch), rg_row_s(r0, RG_COL_arch));
	rg_str_printable(h->vendor, sizeof(h->vendor), rg_row_s(r0, RG_COL_cpu_vendor));
	rg_str_printable(h->model, sizeof(h->model), rg_row_s(r0, RG_COL_cpu_model));
	rg_str_printable(h->part, sizeof(h->part), rg_row_s(r0, RG_COL_cpu_part));
	h->rows = malloc(n * sizeof(*h->rows));
	h->by_key = malloc(n * sizeof(*h->by_key));
	if (!h->rows || !h->by_key)
		return -1;
	h->vmin = h->vmax = in[v[0].in].version;
	for (size_t i = 0; i < n; i++) {
		const struct input *f = &in[v[i].in];

		if (i && !rg_row_key_cmp(v[run].r, v[i].r)) {
			/* the same key again: a later file's row (the reader refuses it within one file) */
			if (add_dup(h, v[run].r, v[i].r))
				return -1;
			v[i].r = NULL;
			continue;
		}
		run = i;
		h->vmin = f->version < h->vmin ? f->version : h->vmin;
		h->vmax = f->version > h->vmax ? f->version : h->vmax;
		if (f->timer[0] && !h->timer[0])
			snprintf(h->timer, sizeof(h->timer), "%s", f->timer);
		h->by_key[k++] = v[i].r;
	}
	/* rows in reading order */
	qsort(v, n, sizeof(*v), cmp_order);
	h->n = 0;
	for (size_t i = 0; i < n; i++) {
		const struct rg_row *r = v[i].r;
		bool legacy;

		if (!r)
			continue;
		h->rows[h->n++] = r;
		rg_row_role(r, &legacy);
		h->legacy_roles |= legacy && rp_is_pair1(r);
		add_kernel(h, rg_row_s(r, RG_COL_kernel));
		all_emulated &= rg_env_virt_emulated(rg_row_s(r, RG_COL_virt));
		if (!kernel_row && !strcmp(rg_row_s(r, RG_COL_suite), "bpf"))
			kernel_row = r;
	}
	/* The design the kernel runs is the BPF rows' kernel's, else the first row's. */
	snprintf(h->kernel, sizeof(h->kernel), "%s", rg_row_s(kernel_row ? kernel_row : h->rows[0], RG_COL_kernel));
	snprintf(h->virt, sizeof(h->virt), "%s", rg_row_s(h->rows[0], RG_COL_virt));
	h->emulated = all_emulated;
	return 0;
}

/* Labels: the name alone while it is unique, else with arch and CPU model (and part when those agree too). */
static void make_labels(struct host *hosts, size_t nh)
{
	for (size_t i = 0; i < nh; i++) {
		struct host *h = &hosts[i];
		bool shared = false, same_model = false;
		char tmp[sizeof(h->name)];

		for (size_t k = 0; k < nh; k++) {
			if (k == i || strcmp(hosts[k].hostname, h->hostname))
				continue;
			shared = true;
			same_model |= !strcmp(hosts[k].arch, h->arch) && !strcmp(hosts[k].model, h->model);
		}
		if (!shared)
			snprintf(h->name, sizeof(h->name), "%s", h->hostname);
		else if (!same_model)
			snprintf(h->name, sizeof(h->name), "%s (%s, %s)", h->hostname, h->arch,
				 *h->model ? h->model : "?");
		else
			snprintf(h->name, sizeof(h->name), "%s (%s, %s, %s %s)", h->hostname, h->arch,
				 *h->model ? h->model : "?", h->vendor, h->part);
		memcpy(tmp, h->name, sizeof(tmp));
		rg_str_printable(h->name, sizeof(h->name), tmp);	/* a cut name: '?' for half a character */
	}
}

/* The refs of one host: v[from .. from+n), the first in reading order. */
struct span {
	size_t from, n, first;
};

static int cmp_span(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;

	return (a->first > b->first) - (a->first < b->first);
}

int rp_group_hosts(const struct input *in, size_t nin, struct host **hostsp, size_t *nh,
		   char *err, size_t errlen)
{
	size_t total = 0, k = 0, cap = 0;
	struct ref *v;
	struct host *hosts = NULL;
	struct span *span = NULL;
	int ret = -1;

	*hostsp = NULL;
	*nh = 0;
	for (size_t i = 0; i < nin; i++)
		total += in[i].rows.n;
	if (!total) {
		snprintf(err, errlen, "the files hold no rows");
		return -1;
	}
	v = malloc(total * sizeof(*v));
	if (!v)
		goto oom;
	for (size_t i = 0; i < nin; i++)
		for (size_t r = 0; r < in[i].rows.n; r++, k++)
			v[k] = (struct ref){ &in[i].rows.v[r], i, k };
	qsort(v, total, sizeof(*v), cmp_ref);
	/* One span of equal identity per host; hosts in order of their first row. */
	for (size_t i = 0; i < total; i++) {
		if (i && !rp_host_id_cmp(v[i - 1].r, v[i].r)) {
			span[*nh - 1].n++;
			span[*nh - 1].first = v[i].order < span[*nh - 1].first ? v[i].order : span[*nh - 1].first;
			continue;
		}
		if (*nh == cap) {
			void *p = realloc(span, (cap ? cap * 2 : 8) * sizeof(*span));

			if (!p)
				goto oom;
			span = p;
			cap = cap ? cap * 2 : 8;
		}
		span[*nh].from = i;
		span[*nh].n = 1;
		span[*nh].first = v[i].order;
		(*nh)++;
	}
	hosts = calloc(*nh, sizeof(*hosts));
	if (!hosts)
		goto oom;
	qsort(span, *nh, sizeof(*span), cmp_span);	/* hosts in order of first appearance */
	for (size_t h = 0; h < *nh; h++) {
		if (make_host(&hosts[h], v + span[h].from, span[h].n, in))
			goto oom;
		qsort(hosts[h].by_key, hosts[h].n, sizeof(*hosts[h].by_key), cmp_row_ptr_key);
	}
	make_labels(hosts, *nh);
	*hostsp = hosts;
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
	rp_hosts_free(hosts, *nh);
	*nh = 0;
out:
	free(span);
	free(v);
	return ret;
}

void rp_hosts_free(struct host *hosts, size_t nh)
{
	for (size_t i = 0; hosts && i < nh; i++) {
		free(hosts[i].rows);
		free(hosts[i].by_key);
		free(hosts[i].dups);
	}
	free(hosts);
}
