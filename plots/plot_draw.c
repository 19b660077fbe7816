// SPDX-License-Identifier: MIT
/* `rgbench plot`'s drawing: the staging folder's CSV files for rgplot.py, running it (stop signals passed on). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
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

static void put_d(FILE *f, double v)
{
	if (isnan(v))
		fputs(",", f);
	else
		fprintf(f, ",%.9g", v);
}

/* The latency histograms: one line per bin (hi empty for the open last bin). */
static int write_lat(const char *path, struct source *src, size_t nsrc)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs("source,label,guard,lo_ns,hi_ns,count\n", f);
	for (size_t s = 0; s < nsrc; s++) {
		for (size_t i = 0; i < src[s].rows.n; i++) {
			const struct rg_row *r = &src[s].rows.v[i];

			if (!r->n_lat || (strcmp(rg_row_s(r, RG_COL_status), "ok") &&
					  strcmp(rg_row_s(r, RG_COL_status), "noisy")))
				continue;
			for (size_t k = 0; k < r->n_lat; k++) {
				fprintf(f, "%zu,", s);
				rg_csv_put_field(f, src[s].label);
				fputc(',', f);
				rg_csv_put_field(f, rg_row_s(r, RG_COL_guard));
				fprintf(f, ",%.9g", r->lat_lo[k]);
				put_d(f, r->lat_hi[k]);
				fprintf(f, ",%llu\n", r->lat_count[k]);
			}
		}
	}
	if (ferror(f)) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

/* guards.def's guards in its order with their roles: rgplot.py styles every guard from it. */
static int write_guards(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs("guard,role\n", f);
	for (size_t i = 0; i < RG_GUARD__COUNT; i++)
		fprintf(f, "%s,%s\n", rg_guards[i].name, rg_guard_role(&rg_guards[i]));
	if (ferror(f)) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

static int write_data(const char *path, struct source *src, size_t nsrc)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs("source,label,host,cpu_model,suite,guard,role,scenario,threads,duty_ns,batch,status,"
	      "ns_median,ns_stddev,ns_min,ns_max,mops_median,mops_stddev,baseline,delta_ns,"
	      "delta_ci_lo,delta_ci_hi\n", f);
	for (size_t s = 0; s < nsrc; s++) {
		for (size_t i = 0; i < src[s].rows.n; i++) {
			const struct rg_row *r = &src[s].rows.v[i];

			const char *text[] = { src[s].label, rg_row_s(r, RG_COL_host),
					       rg_row_s(r, RG_COL_cpu_model), rg_row_s(r, RG_COL_suite),
					       rg_row_s(r, RG_COL_guard), rg_row_role(r, NULL),
					       rg_row_s(r, RG_COL_scenario) };

			fprintf(f, "%zu", s);
			for (size_t k = 0; k < sizeof(text) / sizeof(text[0]); k++) {
				fputc(',', f);
				rg_csv_put_field(f, text[k]);
			}
			fprintf(f, ",%lld,%lld,%lld,", rg_row_i(r, RG_COL_threads),
				rg_row_i(r, RG_COL_duty_ns), rg_row_i(r, RG_COL_batch));
			rg_csv_put_field(f, rg_row_s(r, RG_COL_status));
			put_d(f, rg_row_d(r, RG_COL_ns_median));
			put_d(f, rg_row_d(r, RG_COL_ns_stddev));
			put_d(f, rg_row_d(r, RG_COL_ns_min));
			put_d(f, rg_row_d(r, RG_COL_ns_max));
			put_d(f, rg_row_d(r, RG_COL_mops_median));
			put_d(f, rg_row_d(r, RG_COL_mops_stddev));
			fputc(',', f);
			rg_csv_put_field(f, rg_row_s(r, RG_COL_baseline));	/* the ladder's chain */
			put_d(f, rg_row_d(r, RG_COL_delta_ns));
			put_d(f, rg_row_d(r, RG_COL_delta_ci_lo));
			put_d(f, rg_row_d(r, RG_COL_delta_ci_hi));
			fputc('\n', f);
		}
	}
	if (ferror(f)) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
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

/* The staging folder's files for rgplot.py. */
struct plot_files {
	char data[4200], lat[4200], fleet[4200], decision[4200], guards[4200];
};

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

static int run_python(const char *py, const char *script, const struct plot_files *pf,
		      const char *formats, const char *outdir, char *err, size_t errlen)
{
	char *args[] = { (char *)py, (char *)script, "--data", (char *)pf->data,
			 "--lat", (char *)pf->lat, "--fleet", (char *)pf->fleet,
			 "--decision", (char *)pf->decision, "--guards", (char *)pf->guards,
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

/* Draw into stage: the rows and latency histograms as CSV, then rgplot.py. 0, or -1 with err set. */
int pl_draw(const struct plot_opts *o, const char *script, const char *stage,
	    struct source *src, size_t nsrc, char *err, size_t errlen)
{
	struct plot_files pf;
	const struct rg_rows **rows = calloc(nsrc ? nsrc : 1, sizeof(*rows));
	int ret;

	snprintf(pf.data, sizeof(pf.data), "%s/rows.csv", stage);
	if (write_data(pf.data, src, nsrc)) {
		snprintf(err, errlen, "cannot write %s: %s", pf.data, strerror(errno));
		free(rows);
		return -1;
	}
	snprintf(pf.lat, sizeof(pf.lat), "%s/lat.csv", stage);
	if (write_lat(pf.lat, src, nsrc)) {
		snprintf(err, errlen, "cannot write %s: %s", pf.lat, strerror(errno));
		free(rows);
		return -1;
	}
	snprintf(pf.guards, sizeof(pf.guards), "%s/guards.csv", stage);
	if (write_guards(pf.guards)) {
		snprintf(err, errlen, "cannot write %s: %s", pf.guards, strerror(errno));
		free(rows);
		return -1;
	}
	/* the heat map's matrix and the decision per host, relative to each kernel's design */
	snprintf(pf.fleet, sizeof(pf.fleet), "%s/fleet.csv", stage);
	snprintf(pf.decision, sizeof(pf.decision), "%s/decision.csv", stage);
	for (size_t i = 0; rows && i < nsrc; i++)
		rows[i] = &src[i].rows;
	ret = rows ? rp_across_heat_file(pf.fleet, pf.decision, rows, nsrc) : -1;
	free(rows);
	if (ret) {
		snprintf(err, errlen, "cannot write %s: %s", pf.fleet, strerror(errno));
		return -1;
	}
	fflush(stdout);
	if (run_python(o->py, script, &pf, o->formats, stage, err, errlen))
		return -1;
	unlink(pf.data);
	unlink(pf.lat);
	unlink(pf.fleet);
	unlink(pf.decision);
	unlink(pf.guards);
	return 0;
}
