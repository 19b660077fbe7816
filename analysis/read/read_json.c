// SPDX-License-Identifier: MIT
/* The reader's JSON half: the top level, each result object, its samples and latency histogram (jansson). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "reader.h"

/*
 * jansson does not say where a value is, so find the line on which each element
 * of the top-level "results" array starts with a small scan of the (already
 * validated) text. Elements beyond the array get the array's line.
 */
static int *json_result_lines(const char *buf, size_t len, size_t n)
{
	int *lines = calloc(n ? n : 1, sizeof(*lines));
	int depth = 0, line = 1, arr_line = 1;
	bool in_str = false, esc = false, want_value = false, in_results = false;
	size_t k = 0, key_start = 0, key_len = 0, str_start = 0;
	bool last_is_key = false;

	if (!lines)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];

		if (ch == '\n')
			line++;
		if (in_str) {
			if (esc)
				esc = false;
			else if (ch == '\\')
				esc = true;
			else if (ch == '"') {
				in_str = false;
				key_start = str_start;
				key_len = i - str_start;
			}
			continue;
		}
		if (in_results && depth == 2 && want_value && ch != ' ' && ch != '\n' &&
		    ch != '\t' && ch != '\r' && ch != ']') {
			if (k < n)
				lines[k++] = line;
			want_value = false;
		}
		switch (ch) {
		case '"':
			in_str = true;
			str_start = i + 1;
			break;
		case ':':
			last_is_key = depth == 1 && key_len == 7 &&
				      !memcmp(buf + key_start, "results", 7);
			break;
		case '{':
			depth++;
			break;
		case '[':
			depth++;
			if (depth == 2 && last_is_key) {
				in_results = true;
				want_value = true;
				arr_line = line;
			}
			break;
		case '}':
		case ']':
			if (depth == 2 && in_results)
				in_results = false;
			depth--;
			break;
		case ',':
			if (in_results && depth == 2)
				want_value = true;
			break;
		}
	}
	for (; k < n; k++)
		lines[k] = arr_line;
	return lines;
}

/* A per-repetition array; only differences (allow_negative) may be below 0. */
static int json_samples(struct rd_ctx *c, int line, json_t *o, const char *key,
			double **out, size_t *n, bool allow_negative)
{
	json_t *a = json_object_get(o, key), *e;
	size_t i;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return rd_fail(c, line, "'%s' is not an array", key);
	if (!json_array_size(a))
		return 0;
	*out = malloc(json_array_size(a) * sizeof(**out));
	if (!*out)
		return rd_fail(c, line, "out of memory");
	*n = 0;
	json_array_foreach(a, i, e) {
		double v;

		if (json_is_null(e))
			continue;	/* a repetition that measured nothing */
		if (!json_is_number(e))
			return rd_fail(c, line, "'%s'[%zu] is not a number", key, i);
		v = json_number_value(e);
		if (!isfinite(v) || (v < 0 && !allow_negative))
			return rd_fail(c, line, "'%s'[%zu] is %s", key, i,
				    isfinite(v) ? "negative" : "not finite");
		(*out)[(*n)++] = v;
	}
	return 0;
}

/* "lat_hist": [[lo_ns, hi_ns or null, count], ...], lo ascending, counts >= 0. */
static int json_lat_hist(struct rd_ctx *c, int line, struct rg_row *r, json_t *o)
{
	json_t *a = json_object_get(o, "lat_hist"), *e;
	size_t i, n;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return rd_fail(c, line, "'lat_hist' is not an array");
	n = json_array_size(a);
	r->lat_lo = malloc((n ? n : 1) * sizeof(double));
	r->lat_hi = malloc((n ? n : 1) * sizeof(double));
	r->lat_count = malloc((n ? n : 1) * sizeof(unsigned long long));
	if (!r->lat_lo || !r->lat_hi || !r->lat_count)
		return rd_fail(c, line, "out of memory");
	json_array_foreach(a, i, e) {
		json_t *lo = json_array_get(e, 0), *hi = json_array_get(e, 1), *k = json_array_get(e, 2);

		if (!json_is_array(e) || json_array_size(e) != 3 || !json_is_number(lo) ||
		    !(json_is_number(hi) || json_is_null(hi)) || !json_is_integer(k) ||
		    json_integer_value(k) < 0)
			return rd_fail(c, line, "'lat_hist'[%zu] is not [lo_ns, hi_ns|null, count]", i);
		r->lat_lo[i] = json_number_value(lo);
		r->lat_hi[i] = json_is_null(hi) ? NAN : json_number_value(hi);
		r->lat_count[i] = (unsigned long long)json_integer_value(k);
		if (!isfinite(r->lat_lo[i]) || r->lat_lo[i] < 0 || (i && r->lat_lo[i] <= r->lat_lo[i - 1]) ||
		    (!isnan(r->lat_hi[i]) && r->lat_hi[i] <= r->lat_lo[i]))
			return rd_fail(c, line, "'lat_hist'[%zu]: bins must be ascending with lo < hi", i);
		r->n_lat = i + 1;
	}
	return 0;
}

static int json_column(struct rd_ctx *c, int line, struct rg_row *r, int col, json_t *v)
{
	char text[64];

	switch (rd_cols[col].kind) {
	case K_S:
		if (!json_is_string(v))
			return rd_fail(c, line, "'%s' is not a string", rd_cols[col].name);
		if (memchr(json_string_value(v), 0, json_string_length(v)))
			return rd_fail(c, line, "'%s' holds a NUL character", rd_cols[col].name);
		free(r->v[col].s);
		r->v[col].s = strdup(json_string_value(v));
		if (!r->v[col].s)
			return rd_fail(c, line, "out of memory");
		snprintf(text, sizeof(text), "string");
		break;
	case K_B:
		if (json_is_boolean(v)) {
			r->v[col].i = json_is_true(v);
			break;
		}
		__attribute__((fallthrough));	/* 0/1 */
	case K_I:
		if (col == RG_COL_ab_boot && json_is_null(v)) {
			r->v[col].i = -1;	/* missing: not an ab boot */
			return 0;
		}
		if (!json_is_integer(v))
			return rd_fail(c, line, "'%s' is not an integer", rd_cols[col].name);
		r->v[col].i = json_integer_value(v);
		snprintf(text, sizeof(text), "%lld", r->v[col].i);
		break;
	case K_U:
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return rd_fail(c, line, "'%s' is not an unsigned integer", rd_cols[col].name);
		r->v[col].u = (unsigned long long)json_integer_value(v);
		snprintf(text, sizeof(text), "%llu", r->v[col].u);
		break;
	case K_D:
		if (json_is_null(v)) {
			r->v[col].d = NAN;
			snprintf(text, sizeof(text), "null");
			break;
		}
		if (!json_is_number(v))
			return rd_fail(c, line, "'%s' is not a number or null", rd_cols[col].name);
		r->v[col].d = json_number_value(v) + 0.0;	/* -0 is 0 */
		snprintf(text, sizeof(text), "%g", r->v[col].d);
		break;
	}
	return rd_check_value(c, line, col, &r->v[col], text);
}

/*
 * The top level: an object with a supported integer schema_version, a
 * non-empty "results" array and, from version 3 on, a run_id string.
 */
static int json_top(struct rd_ctx *c, json_t *root, long long *version, json_t **res,
		    json_t **rid)
{
	json_t *sv;

	if (!json_is_object(root))
		return rd_fail(c, 1, "top level is not an object");
	sv = json_object_get(root, "schema_version");
	if (!sv)
		return rd_fail(c, 1, "no 'schema_version' (not an rgbench result file?)");
	if (!json_is_integer(sv))
		return rd_fail(c, 1, "'schema_version' is not an integer");
	*version = json_integer_value(sv);
	if (*version < 1 || *version > RG_SCHEMA_VERSION)
		return rd_fail(c, 1, "schema version %lld is not supported (this rgbench reads versions 1 to %d)",
			       *version, RG_SCHEMA_VERSION);
	*res = json_object_get(root, "results");
	if (!*res || !json_is_array(*res))
		return rd_fail(c, 1, "no 'results' array");
	if (!json_array_size(*res))
		return rd_fail(c, 1, "no rows ('results' is empty)");
	*rid = NULL;
	if (*version >= 3) {
		*rid = json_object_get(root, "run_id");
		if (!*rid || !json_is_string(*rid) || !json_string_length(*rid) ||
		    rd_has_control(json_string_value(*rid)))
			return rd_fail(c, 1, "no 'run_id' string at the top level (schema version %lld)",
				       *version);
	}
	return 0;
}

/* Every column of results[i]: present exactly when its version has it. */
static int json_columns(struct rd_ctx *c, int line, size_t i, long long version,
			struct rg_row *r, json_t *e)
{
	for (int col = 0; col < RG_NCOLS; col++) {
		json_t *v = json_object_get(e, rd_cols[col].name);

		if (rd_col_since(col) > version) {
			if (v)
				return rd_fail(c, line, "results[%zu]: field '%s' is not in schema version %lld",
					       i, rd_cols[col].name, version);
			continue;	/* an older file: read as empty */
		}
		if (!v)
			return rd_fail(c, line, "results[%zu]: required field '%s' is missing", i,
				       rd_cols[col].name);
		if (json_column(c, line, r, col, v))
			return -1;
	}
	return 0;
}

/* results[i], starting on line: its columns, which must agree with the top level, then its arrays. */
static int json_row(struct rd_ctx *c, int line, size_t i, json_t *e, long long version,
		    json_t *rid)
{
	struct rg_row *r;

	if (!json_is_object(e))
		return rd_fail(c, line, "results[%zu] is not an object", i);
	r = rd_row_new(c, line);
	if (!r)
		return rd_fail(c, line, "out of memory");
	if (json_columns(c, line, i, version, r, e))
		return -1;
	if (rid && strcmp(r->v[RG_COL_run_id].s, json_string_value(rid))) {
		char b1[40], b2[40];
		const char *a = r->v[RG_COL_run_id].s, *t = json_string_value(rid);

		return rd_fail(c, line, "results[%zu]: run_id '%s', the file says '%s'", i,
			       rd_frag(a, strlen(a), b1, sizeof(b1)), rd_frag(t, strlen(t), b2, sizeof(b2)));
	}
	if (r->v[RG_COL_schema_version].i != version)
		return rd_fail(c, line, "results[%zu]: schema_version %lld, the file says %lld", i,
			       r->v[RG_COL_schema_version].i, version);
	if (json_samples(c, line, e, "samples_ns", &r->samples_ns, &r->n_ns, false) ||
	    json_samples(c, line, e, "samples_mops", &r->samples_mops, &r->n_mops, false) ||
	    json_samples(c, line, e, "samples_wall_ns", &r->samples_wall_ns, &r->n_wall, false) ||
	    json_samples(c, line, e, "samples_delta_ns", &r->samples_delta_ns, &r->n_delta, true) ||
	    json_samples(c, line, e, "samples_cpu_ns", &r->samples_cpu_ns, &r->n_cpu, false) ||
	    json_samples(c, line, e, "samples_cpu_delta_ns", &r->samples_cpu_delta_ns,
			 &r->n_cpu_delta, true) ||
	    json_samples(c, line, e, "runs_ns", &r->runs_ns, &r->n_runs_ns, false) ||
	    json_samples(c, line, e, "runs_delta_ns", &r->runs_delta_ns, &r->n_runs_delta, true) ||
	    json_lat_hist(c, line, r, e))
		return -1;
	return 0;
}

/*
 * The top's "timer" object into the file's entry of c->out->timers (the last
 * added), checked like every value the reader takes (report prints it): an
 * object whose source is one printable line of 1 to 64 bytes (the writer's
 * rule, rg_str_is_printable()), hz finite in (0, 1e12], resolution_ns and
 * overhead_ns finite and >= 0 or null. Absent: no timer. 0 or -1.
 */
static int json_timer(struct rd_ctx *c, json_t *root)
{
	struct rg_timer *tm = &c->out->timers[c->out->nfiles - 1];
	json_t *t = json_object_get(root, "timer"), *s, *hz, *res, *ov;
	double f, r, o;

	if (!t)
		return 0;
	if (!json_is_object(t))
		return rd_fail(c, 1, "\"timer\" is not an object");
	s = json_object_get(t, "source");
	hz = json_object_get(t, "hz");
	res = json_object_get(t, "resolution_ns");
	ov = json_object_get(t, "overhead_ns");
	f = json_number_value(hz);
	r = json_is_number(res) ? json_number_value(res) : NAN;
	o = json_is_number(ov) ? json_number_value(ov) : NAN;
	if (!json_is_string(s) || !json_string_length(s) || json_string_length(s) > 64 ||
	    strlen(json_string_value(s)) != json_string_length(s) ||
	    !rg_str_is_printable(json_string_value(s)))
		return rd_fail(c, 1, "\"timer\".source: not a name of 1 to 64 printable characters");
	if (!json_is_number(hz) || !isfinite(f) || f <= 0 || f > 1e12)
		return rd_fail(c, 1, "\"timer\".hz: not a frequency in (0, 1e12] Hz");
	if ((res && !json_is_null(res) && !(isfinite(r) && r >= 0)) ||
	    (ov && !json_is_null(ov) && !(isfinite(o) && o >= 0)))
		return rd_fail(c, 1, "\"timer\": resolution_ns and overhead_ns must be numbers >= 0 or null");
	tm->source = strdup(json_string_value(s));
	if (!tm->source)
		return rd_fail(c, 1, "out of memory");
	tm->hz = f;
	tm->resolution_ns = r;
	tm->overhead_ns = o;
	return 0;
}

/*
 * jansson does not always say when an allocation failed: its lexer turns a string it cannot
 * allocate into "invalid token near '\"none\"'" (seen under ulimit -v with Debian 13's glibc,
 * where the limit is met at a string rather than at an object). Its allocations go through
 * these, which note a failure, so that the reader can say out of memory instead.
 */
static _Thread_local bool json_alloc_failed;

static void *json_alloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		json_alloc_failed = true;
	return p;
}

static void json_free(void *p)
{
	free(p);
}

int rd_read_json(struct rd_ctx *c, const char *buf, size_t len)
{
	json_error_t je;
	json_t *root, *res = NULL, *e, *rid = NULL;
	int *lines = NULL, ret = -1;
	long long version = 0;
	size_t i;

	json_set_alloc_funcs(json_alloc, json_free);
	json_alloc_failed = false;
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	/* jansson says "", nothing useful or a wrong reason when an allocation failed: say out of memory. */
	if (!root && (json_alloc_failed || json_error_code(&je) == json_error_out_of_memory || !je.text[0]))
		return rd_fail(c, 0, "out of memory while parsing the JSON (%zu bytes; ulimit -v?)", len);
	if (!root)
		return rd_fail(c, je.line > 0 ? je.line : 1, "invalid JSON: %s", je.text);
	if (json_top(c, root, &version, &res, &rid) || json_timer(c, root))
		goto out;
	lines = json_result_lines(buf, len, json_array_size(res));
	if (!lines) {
		rd_fail(c, 1, "out of memory");
		goto out;
	}
	json_array_foreach(res, i, e)
		if (rd_check_stop(c, lines[i]) || json_row(c, lines[i], i, e, version, rid))
			goto out;
	ret = 0;
out:
	free(lines);
	json_decref(root);
	return ret;
}
