// SPDX-License-Identifier: MIT
/* The plan's outputs: --out/--json or the default results/<host>-<time> names, checked and locked before a run measures. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include "command.h"
#include "rg/safe_name.h"
#include "rg/schema.h"
#include "rg/writer.h"

static void default_base(char *buf, size_t len)
{
	char host[RG_SAFE_NAME_MAX + 1], ts[32];
	time_t now = time(NULL);
	struct utsname u;
	struct tm tm;

	/* The host's name as a file name: the rule scripts/run.sh and the fleet use (rg/safe_name.h). */
	rg_safe_name(host, uname(&u) ? "" : u.nodename, "host");
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(buf, len, "results/%s-%s", host, ts);
}

static void json_beside(char *buf, size_t len, const char *csv)
{
	size_t n = strnlen(csv, len - 8);

	if (n > 4 && !strcmp(csv + n - 4, ".csv"))
		snprintf(buf, len, "%.*s.json", (int)(n - 4), csv);
	else
		snprintf(buf, len, "%s.json", csv);
}

/*
 * The default output: BASE.csv/.json, or BASE-2, BASE-3, ... when a result of
 * that name exists or another run is writing it (its lock is held), so that
 * runs started in the same second never overwrite each other (a --json path
 * given with no --out is kept as given). The names are locked on return.
 * 0, or the exit code (2 usage, 1 failure) after printing why.
 */
static int default_output(const char *base, char *csv, char *json, size_t len, bool json_given)
{
	char err[PATH_MAX + 256];
	struct stat st;

	for (int k = 1; k <= 1000; k++) {
		char sfx[16] = "";
		int rc;

		if (k > 1)
			snprintf(sfx, sizeof(sfx), "-%d", k);
		snprintf(csv, len, "%s%s.csv", base, sfx);
		if (!json_given)
			snprintf(json, len, "%s%s.json", base, sfx);
		rc = rg_output_check(csv, json, err, sizeof(err));
		/* Busy: another run has this name; a busy --json of the user's is an error. */
		if (rc == 1 && errno == EBUSY &&
		    !(json_given && !strncmp(err, json, strlen(json)) && err[strlen(json)] == ' '))
			continue;
		if (rc) {
			fprintf(stderr, "rgbench: %s\n", err);
			return rc;
		}
		/* Locked: now a finished run of this name cannot appear behind our back. */
		if (lstat(csv, &st) && (json_given || lstat(json, &st)))
			return RG_EXIT_OK;
		rg_output_release();
	}
	fprintf(stderr, "rgbench: %s: a thousand results of this name already exist\n", base);
	return RG_EXIT_FAIL;
}

/*
 * --out x.json (with --json: x.json.json beside it) or --json x.csv: a file the
 * reader would take for the other format. After the path checks, so that a
 * path that is unusable anyway says why first. 0 or the usage exit status.
 */
static int formats(const struct rg_suite_cfg *cfg)
{
	char err[PATH_MAX + 256];

	if (rg_output_check_formats(cfg->out_csv, cfg->out_json[0] ? cfg->out_json : NULL, err,
				    sizeof(err)))
		return rg_cl_usage_error("%s", err);
	return RG_EXIT_OK;
}

/*
 * Everything about the output is settled before measuring: --out (and --json
 * FILE, or the JSON beside it), or the default results/<host>-<time>.csv and
 * .json, into the plan. With lock (a run) the names are checked and locked
 * (and results/ made); without (--plan) only named. 0, or the exit status
 * after one line.
 */
int rg_bench_outputs(const struct rg_bench_opts *o, struct rg_suite_cfg *cfg, bool lock)
{
	char err[PATH_MAX + 256], base[PATH_MAX];
	bool want_json = o->want_json;
	int rc;

	snprintf(cfg->out_csv, sizeof(cfg->out_csv), "%s", o->out_csv);
	snprintf(cfg->out_json, sizeof(cfg->out_json), "%s", o->out_json);
	if (!o->out_csv[0]) {
		bool made;

		cfg->out_default = true;
		default_base(base, sizeof(base));
		if (!lock) {
			snprintf(cfg->out_csv, sizeof(cfg->out_csv), "%s.csv", base);
			if (!o->out_json[0])
				snprintf(cfg->out_json, sizeof(cfg->out_json), "%s.json", base);
			return RG_EXIT_OK;
		}
		if (o->out_json[0] && (rc = formats(cfg)))	/* before results/ is made */
			return rc;
		made = !mkdir("results", 0755);
		/* An output that cannot be written, found before any work: 2, as for --out. */
		if (!made && errno != EEXIST)
			return rg_cl_error("cannot create results/: %s", strerror(errno)), RG_EXIT_USAGE;
		rc = default_output(base, cfg->out_csv, cfg->out_json, sizeof(cfg->out_csv),
				    o->out_json[0] != 0);
		if (!rc && o->gb_out) {	/* --benchmark_out under the same check */
			const char *p[3] = { cfg->out_csv, cfg->out_json[0] ? cfg->out_json : NULL,
					     o->gb_out };

			rg_output_release();
			rc = rg_output_checkv(p, 3, err, sizeof(err));
			if (rc)
				fprintf(stderr, "rgbench: %s\n", err);
		}
		if (rc && made)
			rmdir("results");
		return rc ? rc : formats(cfg);
	}
	if (want_json && !o->out_json[0] && rg_output_is_stdout(o->out_csv))
		return rg_cl_usage_error("--json alone writes the JSON beside the CSV, and --out - "
					 "has no file to write beside: give --json FILE");
	if (want_json && !o->out_json[0])
		json_beside(cfg->out_json, sizeof(cfg->out_json), o->out_csv);
	if (!lock)
		return formats(cfg);
	{
		/* --out, --json and --benchmark_out under one check. */
		const char *p[3] = { cfg->out_csv, cfg->out_json[0] ? cfg->out_json : NULL, o->gb_out };

		rc = rg_output_checkv(p, 3, err, sizeof(err));
	}
	if (rc)
		fprintf(stderr, "rgbench: %s\n", err);
	return rc ? rc : formats(cfg);
}
