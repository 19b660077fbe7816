// SPDX-License-Identifier: MIT
/* Row selection (rg_select_row): the rows whose guard, scenario, role and name pass comma-separated lists and a pattern. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/results.h"

/* True when list (comma-separated) holds word, or any of the ';'-separated words of multi. */
static bool in_list(const char *list, const char *word, bool multi)
{
	const char *p = list;

	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (multi) {
			for (const char *w = word; *w;) {
				const char *we = strchr(w, ';');
				size_t wn = we ? (size_t)(we - w) : strlen(w);

				if (wn == n && !strncmp(w, p, n))
					return true;
				w += wn + (we != NULL);
			}
		} else if (strlen(word) == n && !strncmp(word, p, n)) {
			return true;
		}
		p += n + (e != NULL);
	}
	return false;
}

void rg_row_select_name(const struct rg_row *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/%s/t%lld/d%lld", rg_row_s(r, RG_COL_suite), rg_row_s(r, RG_COL_guard),
		 rg_row_s(r, RG_COL_scenario), rg_row_i(r, RG_COL_threads), rg_row_i(r, RG_COL_duty_ns));
}

bool rg_select_row(const struct rg_row *r, const struct rg_select *s)
{
	char name[512];

	if (s->guards && !in_list(s->guards, rg_row_s(r, RG_COL_guard), false))
		return false;
	if (s->scenarios && !in_list(s->scenarios, rg_row_s(r, RG_COL_scenario), false))
		return false;
	if (s->roles) {
		bool table;
		const char *role = rg_row_role(r, &table);

		if (!in_list(s->roles, role, true))
			return false;
	}
	if (s->rows) {
		rg_row_select_name(r, name, sizeof(name));
		if (fnmatch(s->rows, name, 0))
			return false;
	}
	return true;
}

/* The rows a selected row is measured against: its baseline guard and noop, same suite. */
static bool is_base_of(const struct rg_row *r, const struct rg_row *sel)
{
	const char *g = rg_row_s(r, RG_COL_guard);

	return !strcmp(rg_row_s(r, RG_COL_suite), rg_row_s(sel, RG_COL_suite)) &&
	       (!strcmp(g, "noop") || !strcmp(g, rg_row_s(sel, RG_COL_baseline)));
}

struct keep_arg {
	const struct rg_select *s;
	const struct rg_rows *rows;
	const char *also;
};

static bool keep_row(const struct rg_row *r, const void *arg)
{
	const struct keep_arg *k = arg;

	if (rg_select_row(r, k->s) || (k->also && !strcmp(rg_row_s(r, RG_COL_guard), k->also)))
		return true;
	if (!k->s->with_baselines)
		return false;
	for (size_t i = 0; i < k->rows->n; i++)
		if (&k->rows->v[i] != r && rg_select_row(&k->rows->v[i], k->s) && is_base_of(r, &k->rows->v[i]))
			return true;
	return false;
}

size_t rg_rows_select(struct rg_rows *rows, const struct rg_select *s, const char *also)
{
	struct keep_arg k = { s, rows, also };
	size_t want = 0;

	/* Decide for every row against the rows as read, then drop: no decision sees a gap. */
	bool *keep = calloc(rows->n ? rows->n : 1, sizeof(*keep));

	if (!keep)
		return (size_t)-1;
	for (size_t i = 0; i < rows->n; i++)
		want += keep[i] = keep_row(&rows->v[i], &k);
	rg_rows_keep_marked(rows, keep);
	free(keep);
	return want;
}
