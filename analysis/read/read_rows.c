// SPDX-License-Identifier: MIT
/* The rows the reader fills: allocation, the files they came from, their keys and the duplicate check. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/cmdline.h"

#include "reader.h"

void rd_row_free(struct rg_row *r)
{
	for (int c = 0; c < RG_NCOLS; c++)
		if (rd_cols[c].kind == K_S)
			free(r->v[c].s);
	free(r->samples_ns);
	free(r->samples_mops);
	free(r->samples_wall_ns);
	free(r->samples_delta_ns);
	free(r->samples_cpu_ns);
	free(r->samples_cpu_delta_ns);
	free(r->runs_ns);
	free(r->runs_delta_ns);
	free(r->lat_lo);
	free(r->lat_hi);
	free(r->lat_count);
}

void rg_rows_free(struct rg_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		rd_row_free(&rows->v[i]);
	for (size_t i = 0; i < rows->nfiles; i++) {
		free(rows->files[i]);
		free(rows->timers[i].source);
	}
	free(rows->v);
	free(rows->files);
	free(rows->timers);
	memset(rows, 0, sizeof(*rows));
}

size_t rg_rows_keep_marked(struct rg_rows *rows, const bool *keep)
{
	size_t n = 0;

	for (size_t i = 0; i < rows->n; i++) {
		if (!keep[i]) {
			rd_row_free(&rows->v[i]);
			continue;
		}
		if (n != i)
			rows->v[n] = rows->v[i];
		n++;
	}
	rows->n = n;
	return n;
}

struct rg_row *rd_row_new(struct rd_ctx *c, int line)
{
	struct rg_rows *o = c->out;
	struct rg_row *r = rg_grow(o->v, &o->cap, o->n, sizeof(*r), 64);

	if (!r)
		return NULL;
	o->v = r;
	r = &o->v[o->n];
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < RG_NCOLS; i++) {
		if (rd_cols[i].kind == K_S) {
			r->v[i].s = strdup("");
			if (!r->v[i].s) {
				rd_row_free(r);
				return NULL;
			}
		} else if (rd_cols[i].kind == K_D) {
			r->v[i].d = NAN;
		}
	}
	r->v[RG_COL_ab_boot].i = -1;	/* missing (older versions, or not an ab boot) */
	r->file = c->file;
	r->line = line;
	o->n++;
	return r;
}

int rd_check_stop(struct rd_ctx *c, int line)
{
	int st = rg_cl_signal_status();

	return st ? rd_fail(c, line, "interrupted by %s", rg_cl_signal_name(st - RG_EXIT_SIGNAL)) : 0;
}

int rd_add_file(struct rg_rows *o, const char *name, const char **stored)
{
	struct rg_timer *t = realloc(o->timers, (o->nfiles + 1) * sizeof(*t));
	char **v;

	if (!t)
		return -1;
	o->timers = t;
	t[o->nfiles] = (struct rg_timer){ NULL, NAN, NAN, NAN };
	v = realloc(o->files, (o->nfiles + 1) * sizeof(*v));
	if (!v)
		return -1;
	o->files = v;
	v[o->nfiles] = strdup(name);
	if (!v[o->nfiles])
		return -1;
	*stored = v[o->nfiles++];
	return 0;
}

void rg_row_key_text(const struct rg_row *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/%s threads=%lld duty_ns=%lld batch=%lld",
		 r->v[RG_COL_suite].s, r->v[RG_COL_guard].s, r->v[RG_COL_scenario].s,
		 r->v[RG_COL_threads].i, r->v[RG_COL_duty_ns].i, r->v[RG_COL_batch].i);
}

static int cmp_ll(long long a, long long b)
{
	return (a > b) - (a < b);
}

int rg_row_key_cmp(const struct rg_row *a, const struct rg_row *b)
{
	static const enum rg_col s[] = { RG_COL_suite, RG_COL_guard, RG_COL_scenario };
	static const enum rg_col n[] = { RG_COL_threads, RG_COL_duty_ns, RG_COL_batch };
	int d;

	for (size_t i = 0; i < 3; i++)
		if ((d = strcmp(a->v[s[i]].s, b->v[s[i]].s)))
			return d;
	for (size_t i = 0; i < 3; i++)
		if ((d = cmp_ll(a->v[n[i]].i, b->v[n[i]].i)))
			return d;
	return 0;
}

/* Indexes into the rows given as qsort_r's argument (no file-static state). */
static int cmp_idx(const void *pa, const void *pb, void *rows)
{
	const struct rg_row *v = rows;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int d = rg_row_key_cmp(&v[a], &v[b]);

	return d ? d : (a > b) - (a < b);
}

int rg_rows_check_unique(const struct rg_rows *rows, size_t from, char *err, size_t errlen)
{
	size_t n = rows->n - from, *idx;
	int ret = 0;

	if (n < 2)
		return 0;
	idx = malloc(n * sizeof(*idx));
	if (!idx) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = from + i;
	qsort_r(idx, n, sizeof(*idx), cmp_idx, rows->v);
	/* Of all duplicates, report the one that comes first in reading order. */
	size_t best = SIZE_MAX, first = 0;

	for (size_t i = 1; i < n; i++) {
		if (rg_row_key_cmp(&rows->v[idx[i - 1]], &rows->v[idx[i]]))
			continue;
		if (idx[i] < best) {
			best = idx[i];
			first = idx[i - 1];
		}
	}
	if (best != SIZE_MAX) {
		const struct rg_row *a = &rows->v[first], *b = &rows->v[best];
		char key[256];

		/* a is the earliest row of the run of equal keys before b. */
		for (size_t i = from; i < best; i++)
			if (!rg_row_key_cmp(&rows->v[i], b)) {
				a = &rows->v[i];
				break;
			}
		rg_row_key_text(b, key, sizeof(key));
		if (a->file == b->file)
			snprintf(err, errlen, "%s:%d: duplicate row %s (first at line %d)",
				 b->file, b->line, key, a->line);
		else
			snprintf(err, errlen, "%s:%d: duplicate row %s (also in %s:%d; "
				 "one side holds one run)", b->file, b->line, key, a->file, a->line);
		ret = -1;
	}
	free(idx);
	return ret;
}
