// SPDX-License-Identifier: MIT
/* The reader's directories: listing the runs in one, pairing a JSON with its CSV twin, reading them all, each operand's runs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *sfx)
{
	size_t a = strlen(s), b = strlen(sfx);

	return a > b && !strcmp(s + a - b, sfx);
}

void rg_list_free(struct rg_dir_run *runs, size_t n)
{
	for (size_t i = 0; runs && i < n; i++) {
		free(runs[i].path);
		free(runs[i].twin);
	}
	free(runs);
}

int rg_list_dir(const char *path, struct rg_dir_run **runs_out, size_t *n_out,
		char *err, size_t errlen)
{
	struct rd_ctx c = { .name = path, .err = err, .errlen = errlen };
	char **names = NULL;
	struct rg_dir_run *runs = NULL;
	size_t n = 0, nruns = 0;
	struct dirent *de;
	int ret = 0;
	DIR *d = opendir(path);

	*runs_out = NULL;
	*n_out = 0;
	if (!d)
		return rd_fail(&c, 0, "cannot open directory: %s", strerror(errno));
	while ((de = readdir(d))) {
		char **v;

		if (!rg_dir_result_name(de->d_name))	/* what report's output check refuses to replace */
			continue;
		v = realloc(names, (n + 1) * sizeof(*v));
		if (!v || !(v[n] = strdup(de->d_name))) {
			names = v ? v : names;
			ret = rd_fail(&c, 0, "out of memory");
			break;
		}
		names = v;
		n++;
	}
	closedir(d);
	if (!ret && !n)
		ret = rd_fail(&c, 0, "no .csv or .json result files in this directory");
	if (!ret) {
		qsort(names, n, sizeof(*names), cmp_str);
		runs = calloc(n, sizeof(*runs));
		if (!runs)
			ret = rd_fail(&c, 0, "out of memory");
	}
	/* x.csv beside x.json: one run, read through the JSON (it has the samples too). */
	for (size_t i = 0; !ret && i < n; i++) {
		size_t stem = strlen(names[i]) - 4;
		const char *twin = NULL;
		bool shadowed = false;

		if (has_suffix(names[i], ".csv")) {
			for (size_t k = 0; k < n; k++)
				shadowed |= has_suffix(names[k], ".json") && strlen(names[k]) == stem + 5 &&
					    !strncmp(names[k], names[i], stem);
			if (shadowed)
				continue;
		} else {
			stem = strlen(names[i]) - 5;
			for (size_t k = 0; k < n; k++)
				if (has_suffix(names[k], ".csv") && strlen(names[k]) == stem + 4 &&
				    !strncmp(names[k], names[i], stem))
					twin = names[k];
		}
		if (asprintf(&runs[nruns].path, "%s/%s", path, names[i]) < 0 ||
		    (twin && asprintf(&runs[nruns].twin, "%s/%s", path, twin) < 0)) {
			ret = rd_fail(&c, 0, "out of memory");
			nruns++;
			break;
		}
		nruns++;
	}
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	if (ret) {
		rg_list_free(runs, nruns);
		return -1;
	}
	*runs_out = runs;
	*n_out = nruns;
	return 0;
}

/* The one run id of the rows from..n of a file ("" before schema 3); NULL when they differ. */
static const char *file_run_id(const struct rg_rows *rows, size_t from)
{
	const char *id = rows->v[from].v[RG_COL_run_id].s;

	for (size_t i = from + 1; i < rows->n; i++)
		if (strcmp(id, rows->v[i].v[RG_COL_run_id].s))
			return NULL;
	return id;
}

int rg_read_run(const struct rg_dir_run *run, struct rg_rows *out, char *err, size_t errlen)
{
	struct rd_ctx c = { .name = run->twin, .err = err, .errlen = errlen };
	size_t from = out->n;
	char *csv_id, b1[40], b2[40];
	const char *id;
	int ret;

	if (!run->twin)
		return rd_read_file(run->path, out, err, errlen);
	/* The CSV twin is validated, and must come from the same run as the JSON. */
	if (rd_read_file(run->twin, out, err, errlen))
		return -1;
	id = file_run_id(out, from);
	if (!id)
		return rd_fail(&c, out->v[from].line, "rows of more than one run (run_id differs)");
	csv_id = strdup(id);
	for (size_t r = from; r < out->n; r++)
		rd_row_free(&out->v[r]);
	out->n = from;
	if (!csv_id)
		return rd_fail(&c, 0, "out of memory");
	ret = rd_read_file(run->path, out, err, errlen);
	if (!ret && strcmp(csv_id, (id = file_run_id(out, from)) ? id : "?")) {
		id = id ? id : "several";
		ret = rd_fail(&c, 0, "not from the same run as %s (run_id '%s' and '%s': a run "
			   "stopped between writing the two, or two runs wrote these names); "
			   "remove or rename one", run->path,
			   *csv_id ? rd_frag(csv_id, strlen(csv_id), b1, sizeof(b1)) : "none",
			   *id ? rd_frag(id, strlen(id), b2, sizeof(b2)) : "none");
	}
	free(csv_id);
	return ret;
}

int rd_read_dir(const char *path, struct rg_rows *out, char *err, size_t errlen)
{
	struct rg_dir_run *runs;
	size_t n, from = out->n;
	int ret = 0;

	if (rg_list_dir(path, &runs, &n, err, errlen))
		return -1;
	for (size_t i = 0; i < n && !ret; i++)
		ret = rg_read_run(&runs[i], out, err, errlen);
	rg_list_free(runs, n);
	if (!ret)
		ret = rg_rows_check_unique(out, from, err, errlen);
	return ret;
}

int rg_each_run(char *const *paths, size_t n, rg_run_fn fn, void *arg, char *err,
		size_t errlen)
{
	for (size_t a = 0; a < n; a++) {
		struct rg_dir_run one = { .path = paths[a] }, *runs = &one;
		struct stat st;
		bool listed = strcmp(paths[a], "-") && !stat(paths[a], &st) && S_ISDIR(st.st_mode);
		size_t nr = 1;
		int ret = 0;

		if (listed && rg_list_dir(paths[a], &runs, &nr, err, errlen))
			return -1;
		for (size_t i = 0; i < nr && !ret; i++)
			ret = fn(&runs[i], listed, arg, err, errlen);
		if (listed)
			rg_list_free(runs, nr);
		if (ret)
			return -1;
	}
	return 0;
}
