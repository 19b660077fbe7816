// SPDX-License-Identifier: MIT
/* `rgbench plot`'s drawing: the rows in one JSON document for rgplot.py, running it (stop signals passed on). */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rg/across.h"
#include "rg/registry.h"
#include "rg/results.h"
#include "plot.h"

extern char **environ;

/* Whether a row was measured (ok, or noisy: measured, some rounds disturbed). */
static bool measured(const struct rg_row *r)
{
	return !strcmp(rg_row_s(r, RG_COL_status), "ok") || !strcmp(rg_row_s(r, RG_COL_status), "noisy");
}

/*
 * One row as the reader read it, every column a plot uses: the source's index
 * and label, the row's names (with the machine's identity for the titles:
 * arch, kernel, virt, timestamp), numbers (null when empty; the interval's
 * level delta_ci_level for the captions), and "lat", its latency
 * histogram as [lo_ns, hi_ns (null: the open last bin), count] per bin, on
 * measured rows that have one.
 */
static json_t *row_json(size_t s, const char *label, const struct rg_row *r)
{
#define COL(n) { RG_COL_##n, #n }
	static const struct { enum rg_col c; const char *name; } text[] = {
		COL(host), COL(arch), COL(cpu_model), COL(kernel), COL(virt), COL(timestamp), COL(suite),
		COL(guard) },
		ints[] = { COL(threads), COL(duty_ns), COL(batch) },
		nums[] = { COL(ns_median), COL(ns_stddev), COL(ns_min), COL(ns_max), COL(mops_median),
			   COL(mops_stddev) },
		deltas[] = { COL(delta_ns), COL(delta_ci_lo), COL(delta_ci_hi), COL(delta_ci_level) };
#undef COL
	json_t *o = json_object();

	json_object_set_new(o, "source", json_integer((json_int_t)s));
	json_object_set_new(o, "label", rp_json_text(label));
	for (size_t k = 0; k < sizeof(text) / sizeof(text[0]); k++)
		json_object_set_new(o, text[k].name, rp_json_text(rg_row_s(r, text[k].c)));
	json_object_set_new(o, "role", rp_json_text(rg_row_role(r, NULL)));
	json_object_set_new(o, "scenario", rp_json_text(rg_row_s(r, RG_COL_scenario)));
	for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
		json_object_set_new(o, ints[k].name, json_integer(rg_row_i(r, ints[k].c)));
	json_object_set_new(o, "status", rp_json_text(rg_row_s(r, RG_COL_status)));
	for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
		json_object_set_new(o, nums[k].name, rp_json_num(rg_row_d(r, nums[k].c), 9));
	/* the ladder's chain */
	json_object_set_new(o, "baseline", rp_json_text(rg_row_s(r, RG_COL_baseline)));
	for (size_t k = 0; k < sizeof(deltas) / sizeof(deltas[0]); k++)
		json_object_set_new(o, deltas[k].name, rp_json_num(rg_row_d(r, deltas[k].c), 9));
	if (r->n_lat && measured(r)) {
		json_t *lat = json_array();

		for (size_t k = 0; k < r->n_lat; k++)
			json_array_append_new(lat, json_pack("[o,o,I]", rp_json_num(r->lat_lo[k], 9),
							     rp_json_num(r->lat_hi[k], 9),
							     (json_int_t)r->lat_count[k]));
		json_object_set_new(o, "lat", lat);
	}
	return o;
}

/*
 * The one document rgplot.py reads: "guards" (guards.def's guards in its
 * order with their roles: every guard is styled from it), "rows" (every
 * source's rows, row_json()), "heat" and "decision" (the heat map's matrix
 * and the decision per host, relative to each kernel's design). NULL when
 * out of memory.
 */
static json_t *plot_doc(struct source *src, size_t nsrc)
{
	const struct rg_rows **rows = calloc(nsrc ? nsrc : 1, sizeof(*rows));
	json_t *doc = json_object(), *guards = json_array(), *all = json_array();

	if (!rows || !doc || !guards || !all) {
		free(rows);
		json_decref(doc);
		json_decref(guards);
		json_decref(all);
		return NULL;
	}
	json_object_set_new(doc, "format", json_string("rgbench-plot-1"));
	for (size_t i = 0; i < RG_GUARD__COUNT; i++)
		json_array_append_new(guards, json_pack("{s:s,s:s}", "guard", rg_guards[i].name,
							"role", rg_guard_role(&rg_guards[i])));
	json_object_set_new(doc, "guards", guards);
	for (size_t s = 0; s < nsrc; s++)
		for (size_t i = 0; i < src[s].rows.n; i++)
			json_array_append_new(all, row_json(s, src[s].label, &src[s].rows.v[i]));
	json_object_set_new(doc, "rows", all);
	for (size_t i = 0; i < nsrc; i++)
		rows[i] = &src[i].rows;
	if (rp_across_plot_json(doc, rows, nsrc)) {
		json_object_set_new(doc, "heat", json_array());
		json_object_set_new(doc, "decision", json_array());
	}
	free(rows);
	return doc;
}

/* The document into path. 0, or -1 (errno set). */
static int write_doc(const char *path, struct source *src, size_t nsrc)
{
	json_t *doc = plot_doc(src, nsrc);
	FILE *f;
	int ret;

	if (!doc) {
		errno = ENOMEM;
		return -1;
	}
	f = fopen(path, "w");
	if (!f) {
		json_decref(doc);
		return -1;
	}
	errno = 0;
	ret = json_dumpf(doc, f, JSON_COMPACT) || ferror(f) ? -1 : 0;
	if (ret && !errno)
		errno = EIO;
	json_decref(doc);
	if (fclose(f))
		ret = -1;
	return ret;
}

/*
 * Wait for the script. A stop signal that reaches rgbench plot alone (kill,
 * a dropped session) is passed on to the script, which exits quietly (a
 * Ctrl-C reaches both); one that does not end it within 5 s is a SIGKILL.
 * Polled every 20 ms, so a signal between the check and the wait is never
 * missed for longer. 0 with *st, or -1 with err set.
 */
static int wait_script(pid_t pid, int *st, char *err, size_t errlen)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	int sent = 0, ticks = 0;

	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR) {
			snprintf(err, errlen, "waitpid: %s", strerror(errno));
			return -1;
		}
		if (pl_stop && !sent) {
			sent = pl_stop;
			kill(pid, sent);
		} else if (sent && ++ticks == 250) {
			kill(pid, SIGKILL);
		}
		nanosleep(&tick, NULL);	/* EINTR on a signal: checked at once */
	}
}

/*
 * The interpreter's environment: rgbench plot's own without the variables
 * that change what python itself does (PYTHONHOME, PYTHONPATH, PYTHONINSPECT,
 * PYTHONSTARTUP, ... every PYTHON* name), so the script runs the same for
 * everyone. What matplotlib and the locale read (MPLCONFIGDIR, HOME, LANG)
 * stays. NULL when out of memory.
 */
static char **python_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 1, sizeof(*env));
	for (size_t i = 0; env && i < n; i++)
		if (strncmp(environ[i], "PYTHON", 6))
			env[k++] = environ[i];
	return env;
}

static int run_python(const char *py, const char *script, const char *data,
		      const char *formats, const char *outdir, char *err, size_t errlen)
{
	char *args[] = { (char *)py, (char *)script, "--data", (char *)data,
			 "--formats", (char *)formats, "--out", (char *)outdir, NULL };
	sigset_t held;
	pid_t pid, parent = getpid();
	char **env = python_env();
	int st;

	if (!env) {
		snprintf(err, errlen, "cannot run %s: %s", py, strerror(ENOMEM));
		return -1;
	}

	/*
	 * The script starts with the default actions (rgbench plot ignores
	 * SIGPIPE) and the stop signals blocked: it unblocks them once its
	 * handlers are in, so one sent while python starts is no traceback.
	 */
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGHUP);
	sigaddset(&held, SIGQUIT);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot run %s: %s", py, strerror(errno));
		free(env);
		return -1;
	}
	if (!pid) {
		/*
		 * The script dies with rgbench plot, SIGKILL included (nothing
		 * is left drawing for no one; the next plot on DIR removes the
		 * staging folder): PR_SET_PDEATHSIG, then a check that the
		 * parent did not die before it was set.
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &held, NULL);
		execve(py, args, env);
		_exit(127);
	}
	free(env);
	if (wait_script(pid, &st, err, errlen))
		return -1;
	if (pl_stop)
		return -1;	/* the caller says it, in one line */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		snprintf(err, errlen, "cannot run %s", py);
		return -1;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
		snprintf(err, errlen, "no plottable rows (no ok user, bpf or kmod rows with values)");
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 4)
		snprintf(err, errlen, "%s cannot import matplotlib: install python3-matplotlib "
			 "(scripts/deps.sh does) or point RG_PYTHON at a python3 that has it", py);
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 5)
		err[0] = '\0';	/* the script said why, in one line */
	else if (WIFEXITED(st))
		snprintf(err, errlen, "%s %s failed (exit %d)", py, script, WEXITSTATUS(st));
	else
		snprintf(err, errlen, "%s %s killed by signal %d", py, script, WTERMSIG(st));
	return -1;
}

/* Draw into stage: the rows in one JSON document (plot_doc()), then rgplot.py. 0, or -1 with err set. */
int pl_draw(const struct plot_opts *o, const char *script, const char *stage,
	    struct source *src, size_t nsrc, char *err, size_t errlen)
{
	char data[4200];

	snprintf(data, sizeof(data), "%s/plot.json", stage);
	if (write_doc(data, src, nsrc)) {
		snprintf(err, errlen, "cannot write %s: %s", data, strerror(errno));
		return -1;
	}
	fflush(stdout);
	if (run_python(o->py, script, data, o->formats, stage, err, errlen))
		return -1;
	unlink(data);
	return 0;
}
