// SPDX-License-Identifier: MIT
/* `rgbench kmod`: build or find rgbench_kmod.ko, load it, run it, read debugfs, unload, write rows. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rg/env.h"
#include "rg/registry.h"
#include "rg/kmod.h"
#include "rg/results.h"

#ifndef RG_KMOD_SRC_DIR
#define RG_KMOD_SRC_DIR "kernel/kmod"
#endif

#define MOD_NAME "rgbench_kmod"
#define DEBUGFS "/sys/kernel/debug"
#define MOD_DIR DEBUGFS "/" MOD_NAME

/* ------------------------------------------------------------------------ */
/* CSV from the module                                                       */

enum { C_GUARD, C_SCENARIO, C_THREADS, C_CPUS, C_CPU, C_RUN, C_BATCH, C_DUTY,
       C_NS_TOTAL, C_OPS, C_REFUSALS, C_STATUS, C_REASON,
       /* optional (modules before schema 3 did not write them) */
       C_ROLE, C_DISTURBED, C_DISCARDED, C_NCOLS };
#define C_NREQUIRED C_ROLE
static const char *const col_names[C_NCOLS] = {
	"guard", "scenario", "threads", "cpus", "cpu", "run", "batch", "duty_ns",
	"ns_total", "ops", "refusals", "status", "reason",
	"role", "disturbed", "discarded",
};

#define MAX_FIELDS 40

/* Split one CSV line in place; fields may be "quoted" (no embedded quotes). */
static int csv_split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		if (n == max)
			return -1;
		if (*p == '"') {
			char *q = strchr(p + 1, '"');

			if (!q)
				return -1;
			*q = '\0';
			f[n++] = p + 1;
			p = q + 1;
			if (*p == '\0')
				return n;
			if (*p != ',')
				return -1;
			p++;
		} else {
			char *c = strchr(p, ',');

			f[n++] = p;
			if (!c)
				return n;
			*c = '\0';
			p = c + 1;
		}
	}
}

static bool parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && *end == '\0';
}

struct group {
	char guard[48], scenario[48], cpus[256], status[16], reason[256], role[32];
	long threads, batch, duty, discarded, disturbed;
	unsigned long long ops, refusals;
	/* per run: sum of ns per pair over CPUs, CPU count, sum of Mpairs/s */
	double *ns_sum, *mops_sum;
	long *ncpu;
	long nruns;
	bool timed;
};

/* A timed row's per-round values, kept to pair it with its round's noop. */
struct timed {
	size_t row;
	double *ns;
	size_t n;
};

struct timed_list {
	struct timed *v;
	size_t n;
};

static void group_free(struct group *g)
{
	free(g->ns_sum);
	free(g->mops_sum);
	free(g->ncpu);
	memset(g, 0, sizeof(*g));
}

static int group_emit(struct rg_resultset *rs, struct group *g, struct timed_list *tl,
		      char *err, size_t errlen)
{
	struct rg_result *r;

	if (!strcmp(g->status, "skipped")) {
		r = rg_results_skip(rs, "kmod", g->guard, g->scenario, "%s", g->reason);
		if (!r)
			goto nomem;
		snprintf(r->pinning, sizeof(r->pinning), "kthread");
		snprintf(r->cpus, sizeof(r->cpus), "%s", g->cpus);
		snprintf(r->role, sizeof(r->role), "%s", g->role);
		r->threads = g->threads;
		r->batch = g->batch;
		r->duty_ns = g->duty;
		return 1;
	}
	r = rg_results_add(rs, "kmod", g->guard, g->scenario);
	if (!r)
		goto nomem;
	snprintf(r->pinning, sizeof(r->pinning), "kthread");
	snprintf(r->cpus, sizeof(r->cpus), "%s", g->cpus);
	snprintf(r->role, sizeof(r->role), "%s", g->role);
	r->threads = g->threads;
	r->batch = g->batch;
	r->duty_ns = g->duty;
	r->ops = g->ops;
	r->refusals = g->refusals;
	snprintf(r->counters, sizeof(r->counters), "n/a: kernel module");
	if (strcmp(g->status, "ok")) {
		snprintf(r->status, sizeof(r->status), "%s", g->status);
		snprintf(r->reason, sizeof(r->reason), "%s", g->reason);
	}
	if (g->timed) {
		double ns[g->nruns], mops[g->nruns];
		struct timed *t;
		long n = 0;

		for (long i = 0; i < g->nruns; i++) {
			if (!g->ncpu[i])
				continue;
			ns[n] = g->ns_sum[i] / (double)g->ncpu[i];
			mops[n] = g->mops_sum[i];
			n++;
		}
		if (n && rg_result_set_samples(r, ns, mops, (size_t)n))
			goto nomem;
		snprintf(r->interleave, sizeof(r->interleave), "rounds");
		r->discarded = g->discarded;
		if (g->disturbed && !strcmp(r->status, "ok")) {
			snprintf(r->status, sizeof(r->status), "noisy");
			snprintf(r->reason, sizeof(r->reason),
				 "%ld run(s) on a kthread still saw an interrupt or context switch "
				 "after the retries", g->disturbed);
		}
		t = realloc(tl->v, (tl->n + 1) * sizeof(*t));
		if (!t)
			goto nomem;
		tl->v = t;
		t = &tl->v[tl->n];
		t->row = rs->n - 1;
		t->n = (size_t)n;
		t->ns = malloc((n ? n : 1) * sizeof(double));
		if (!t->ns)
			goto nomem;
		memcpy(t->ns, ns, n * sizeof(double));
		tl->n++;
	} else {
		r->repetitions = 1;
	}
	return 1;
nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/*
 * Every timed row's delta against the noop row of the same scenario, threads
 * and duty from the same file: round i of the guard minus round i of noop
 * (the module ran them in the same shuffled round), median and interval by
 * rg_result_set_delta().
 */
static int set_deltas(struct rg_resultset *rs, const struct timed_list *tl)
{
	for (size_t i = 0; i < tl->n; i++) {
		struct rg_result *r = &rs->rows[tl->v[i].row];

		if (!strcmp(r->guard, "noop"))
			continue;
		for (size_t j = 0; j < tl->n; j++) {
			const struct rg_result *b = &rs->rows[tl->v[j].row];
			size_t n = tl->v[i].n < tl->v[j].n ? tl->v[i].n : tl->v[j].n;

			if (strcmp(b->guard, "noop") || strcmp(b->scenario, r->scenario) ||
			    b->threads != r->threads || b->duty_ns != r->duty_ns)
				continue;
			if (n && rg_result_set_delta(r, "noop", tl->v[i].ns, tl->v[j].ns, n))
				return -1;
			break;
		}
	}
	return 0;
}

static void timed_free(struct timed_list *tl)
{
	for (size_t i = 0; i < tl->n; i++)
		free(tl->v[i].ns);
	free(tl->v);
	tl->v = NULL;
	tl->n = 0;
}

int rg_kmod_convert(struct rg_resultset *rs, const char *csv, int *nerrors,
		    char *err, size_t errlen)
{
	int idx[C_NCOLS], nhdr, added = 0, errors = 0, lineno = 0;
	char *buf, *line, *save = NULL, *f[MAX_FIELDS];
	struct timed_list tl = { 0 };
	struct group g = { 0 };
	bool have = false;

	buf = strdup(csv);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	line = strtok_r(buf, "\n", &save);
	if (!line || (nhdr = csv_split(line, f, MAX_FIELDS)) < 0 || strcmp(f[0], "suite")) {
		snprintf(err, errlen, "module output has no CSV header");
		goto fail;
	}
	for (int c = 0; c < C_NCOLS; c++) {
		idx[c] = -1;
		for (int i = 0; i < nhdr; i++)
			if (!strcmp(f[i], col_names[c]))
				idx[c] = i;
		if (idx[c] < 0 && c < C_NREQUIRED) {
			snprintf(err, errlen, "module CSV lacks column '%s'", col_names[c]);
			goto fail;
		}
	}
	lineno = 1;
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		unsigned long long threads, batch, duty, ops, refusals, run, ns, v;
		const char *guard, *scen, *status;
		int n;

		lineno++;
		n = csv_split(line, f, MAX_FIELDS);
		if (n != nhdr || strcmp(f[0], "kmod")) {
			snprintf(err, errlen, "module CSV line %d: expected %d fields of suite kmod",
				 lineno, nhdr);
			goto fail;
		}
		guard = f[idx[C_GUARD]];
		scen = f[idx[C_SCENARIO]];
		status = f[idx[C_STATUS]];
		if (!parse_u64(f[idx[C_THREADS]], &threads) || !parse_u64(f[idx[C_BATCH]], &batch) ||
		    !parse_u64(f[idx[C_DUTY]], &duty) || !parse_u64(f[idx[C_OPS]], &ops) ||
		    !parse_u64(f[idx[C_REFUSALS]], &refusals)) {
			snprintf(err, errlen, "module CSV line %d: bad number", lineno);
			goto fail;
		}
		if (!have || strcmp(g.guard, guard) || strcmp(g.scenario, scen)) {
			if (have) {
				if (group_emit(rs, &g, &tl, err, errlen) < 0)
					goto fail;
				added++;
				group_free(&g);
			}
			have = true;
			snprintf(g.guard, sizeof(g.guard), "%s", guard);
			snprintf(g.scenario, sizeof(g.scenario), "%s", scen);
			snprintf(g.cpus, sizeof(g.cpus), "%s", f[idx[C_CPUS]]);
			snprintf(g.status, sizeof(g.status), "%s", status);
			snprintf(g.reason, sizeof(g.reason), "%s", f[idx[C_REASON]]);
			/*
			 * A guard the user suite also has takes its role from
			 * guards.def (one vocabulary); module-only guards keep
			 * the module's.
			 */
			if (rg_guard_find(guard))
				snprintf(g.role, sizeof(g.role), "%s", rg_guard_role(rg_guard_find(guard)));
			else
				snprintf(g.role, sizeof(g.role), "%s",
					 idx[C_ROLE] >= 0 && *f[idx[C_ROLE]] ? f[idx[C_ROLE]] : "n/a");
			g.threads = (long)threads;
			g.batch = (long)batch;
			g.duty = (long)duty;
			if (!strcmp(status, "error"))
				errors++;
		}
		g.ops += ops;
		g.refusals += refusals;
		if (idx[C_DISCARDED] >= 0 && parse_u64(f[idx[C_DISCARDED]], &v) &&
		    (long)v > g.discarded)
			g.discarded = (long)v;	/* per guard, repeated on each of its rows */
		if (strcmp(status, "ok") || !*f[idx[C_NS_TOTAL]])
			continue;	/* skipped, or a re-entry row without time */
		if (!parse_u64(f[idx[C_RUN]], &run) || !parse_u64(f[idx[C_NS_TOTAL]], &ns) ||
		    run > 1000000 || !batch) {
			snprintf(err, errlen, "module CSV line %d: bad run or time", lineno);
			goto fail;
		}
		if (idx[C_DISTURBED] >= 0 && parse_u64(f[idx[C_DISTURBED]], &v) && v)
			g.disturbed++;
		if ((long)batch > g.batch)
			g.batch = (long)batch;
		if ((long)run >= g.nruns) {
			long nr = (long)run + 1;
			double *a = realloc(g.ns_sum, nr * sizeof(double));
			double *b = a ? realloc(g.mops_sum, nr * sizeof(double)) : NULL;
			long *c = b ? realloc(g.ncpu, nr * sizeof(long)) : NULL;

			if (a)
				g.ns_sum = a;
			if (b)
				g.mops_sum = b;
			if (!c) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			g.ncpu = c;
			for (long i = g.nruns; i < nr; i++) {
				g.ns_sum[i] = g.mops_sum[i] = 0;
				g.ncpu[i] = 0;
			}
			g.nruns = nr;
		}
		g.timed = true;
		g.ns_sum[run] += (double)ns / (double)batch;
		g.mops_sum[run] += ns ? (double)batch * 1e3 / (double)ns : 0;
		g.ncpu[run]++;
	}
	if (have) {
		if (group_emit(rs, &g, &tl, err, errlen) < 0)
			goto fail;
		added++;
	}
	if (set_deltas(rs, &tl)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	timed_free(&tl);
	group_free(&g);
	free(buf);
	if (nerrors)
		*nerrors = errors;
	return added;
fail:
	timed_free(&tl);
	group_free(&g);
	free(buf);
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Loading and running                                                       */

struct opts {
	const char *guards, *cpus, *kdir, *module, *out, *json, *raw, *from_raw;
	unsigned long loops, runs, duty_ns, irq_iters, threads, run_ns;
	bool irqs_on, siblings, no_nmi, quiet;
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: rgbench kmod [--guards LIST] [--cpus LIST] [--threads N] [--siblings]\n"
		"                    [--repetitions N] [--batch N | --duration SECONDS]\n"
		"                    [--duty NS] [--irqs-on] [--irq-iters N] [--no-nmi]\n"
		"                    [--kdir DIR | --module FILE.ko] [--out F.csv] [--json F.json]\n"
		"                    [--raw F.csv] [--from-raw F.csv] [--quiet]\n"
		"  Loads rgbench_kmod.ko (built from %s against --kdir,\n"
		"  default /lib/modules/$(uname -r)/build), runs every selected guard on\n"
		"  one bound kthread per physical core (interrupts off, guards in shuffled\n"
		"  rounds) plus the softirq/hardirq/NMI re-entry tests, unloads it and\n"
		"  writes rows (suite=kmod). Needs root and a kernel with module support;\n"
		"  otherwise it says why and exits %d (skipped).\n"
		"  Old spellings: --runs (--repetitions), --loops (--batch), --duty-ns (--duty);\n"
		"  --irqs-off is the default now and accepted.\n"
		"  --raw saves the module's own CSV; --from-raw converts such a file\n"
		"  without loading anything.\n", RG_KMOD_SRC_DIR, RG_KMOD_SKIP);
}

static int read_file(const char *path, char **out, char *err, size_t errlen)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(fd < 0 ? errno : ENOMEM));
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				snprintf(err, errlen, "out of memory reading %s", path);
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
fail:
	close(fd);
	free(buf);
	return -1;
}

/* Write a whole file atomically (tmp + fsync + rename). */
static int write_file_atomic(const char *path, const char *data, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	size_t len = strlen(data), off = 0;
	int fd;

	if (rg_output_tmp_name(tmp, sizeof(tmp), path)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail_close;
		off += (size_t)n;
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		goto fail_unlink;
	}
	if (rename(tmp, path))
		goto fail_unlink;
	return 0;
fail_close:
	close(fd);
fail_unlink:
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	unlink(tmp);
	return -1;
fail:
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return -1;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Run argv, output to logpath; 0 when it exited 0. */
static int run_cmd(char *const argv[], const char *logpath)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int copy_file(const char *from, const char *to)
{
	char *data, err[256];
	int ret;

	if (read_file(from, &data, err, sizeof(err)))
		return -1;
	ret = write_file_atomic(to, data, err, sizeof(err));
	free(data);
	return ret;
}

/*
 * Build the module from RG_KMOD_SRC_DIR (or $RG_KMOD_SRC) against kdir in a
 * fresh temporary directory. 0, RG_KMOD_SKIP (no headers) or -1.
 */
static int build_module(const char *kdir, char *tmpdir, char *ko, size_t kolen)
{
	const char *src = getenv("RG_KMOD_SRC") ? getenv("RG_KMOD_SRC") : RG_KMOD_SRC_DIR;
	char path[PATH_MAX + 64], to[PATH_MAX + 64], mflag[PATH_MAX + 64], log[PATH_MAX + 64];
	char *argv[] = { "make", "-s", "-C", (char *)kdir, mflag, "modules", NULL };

	snprintf(path, sizeof(path), "%s/Makefile", kdir);
	if (!is_file(path)) {
		fprintf(stderr, "rgbench kmod: skipped: no kernel build headers at %s "
			"(install linux-headers-$(uname -r), or pass --kdir or --module)\n", kdir);
		return RG_KMOD_SKIP;
	}
	strcpy(tmpdir, "/tmp/rgbench-kmod.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "rgbench kmod: mkdtemp: %s\n", strerror(errno));
		tmpdir[0] = '\0';
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "Kbuild" : MOD_NAME ".c";

		snprintf(path, sizeof(path), "%s/%s", src, name);
		snprintf(to, sizeof(to), "%s/%s", tmpdir, name);
		if (copy_file(path, to)) {
			fprintf(stderr, "rgbench kmod: module source %s not found "
				"(set RG_KMOD_SRC to the kernel/kmod directory)\n", path);
			return -1;
		}
	}
	snprintf(mflag, sizeof(mflag), "M=%s", tmpdir);
	snprintf(log, sizeof(log), "%s/build.log", tmpdir);
	fprintf(stderr, "rgbench kmod: building the module against %s\n", kdir);
	if (run_cmd(argv, log)) {
		char *text = NULL, err[64];

		fprintf(stderr, "rgbench kmod: module build failed against %s; make said:\n", kdir);
		if (!read_file(log, &text, err, sizeof(err))) {
			size_t n = strlen(text);

			fputs(n > 2000 ? text + n - 2000 : text, stderr);
			free(text);
		}
		return -1;
	}
	snprintf(ko, kolen, "%s/%s.ko", tmpdir, MOD_NAME);
	return 0;
}

static void remove_tmpdir(const char *dir)
{
	static const char *const names[] = {
		MOD_NAME ".c", "Kbuild", "build.log", MOD_NAME ".ko", MOD_NAME ".o",
		MOD_NAME ".mod", MOD_NAME ".mod.c", MOD_NAME ".mod.o", "Module.symvers",
		"modules.order", "." MOD_NAME ".ko.cmd", "." MOD_NAME ".o.cmd",
		"." MOD_NAME ".mod.cmd", "." MOD_NAME ".mod.o.cmd", ".Module.symvers.cmd",
		".modules.order.cmd", "." MOD_NAME ".o.d",
	};
	char p[PATH_MAX];

	if (!dir[0])
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/.tmp_versions", dir);
	rmdir(p);
	if (rmdir(dir) && errno != ENOENT)
		fprintf(stderr, "rgbench kmod: note: left build files in %s\n", dir);
}

static bool module_loaded(void)
{
	return is_dir("/sys/module/" MOD_NAME);
}

static int unload_module(void)
{
	for (int tries = 0; tries < 50; tries++) {
		if (syscall(SYS_delete_module, MOD_NAME, O_NONBLOCK) == 0)
			return 0;
		if (errno == ENOENT)
			return 0;
		if (errno != EAGAIN && errno != EBUSY && errno != EINTR)
			break;
		usleep(100000);
	}
	fprintf(stderr, "rgbench kmod: could not unload %s: %s (run: rmmod %s)\n",
		MOD_NAME, strerror(errno), MOD_NAME);
	return -1;
}

/* Load with params. 0, RG_KMOD_SKIP or -1 (message printed). */
static int load_module(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0) {
		fprintf(stderr, "rgbench kmod: cannot open %s: %s\n", ko, strerror(errno));
		return -1;
	}
	if (syscall(SYS_finit_module, fd, params, 0) == 0) {
		close(fd);
		return 0;
	}
	e = errno;
	close(fd);
	switch (e) {
	case ENOSYS:
		fprintf(stderr, "rgbench kmod: skipped: this kernel cannot load modules "
			"(finit_module: ENOSYS)\n");
		return RG_KMOD_SKIP;
	case EPERM:
		fprintf(stderr, "rgbench kmod: skipped: loading modules is not permitted here "
			"(EPERM: not root, kernel lockdown, or modules_disabled)\n");
		return RG_KMOD_SKIP;
	case ENOEXEC:
	case EINVAL:
		fprintf(stderr, "rgbench kmod: the kernel refused %s: %s (built for another "
			"kernel, or a bad --guards/--cpus value: see dmesg)\n", ko, strerror(e));
		return -1;
	case EEXIST:
		fprintf(stderr, "rgbench kmod: %s is already loaded (rmmod it first)\n", MOD_NAME);
		return -1;
	default:
		fprintf(stderr, "rgbench kmod: loading %s failed: %s\n", ko, strerror(e));
		return -1;
	}
}

static int trigger_run(void)
{
	int fd, n;

	if (!is_dir(MOD_DIR)) {
		/* debugfs may simply not be mounted. */
		if (mount("debugfs", DEBUGFS, "debugfs", 0, NULL) && errno != EBUSY) {
			fprintf(stderr, "rgbench kmod: debugfs is not mounted at " DEBUGFS
				" and mounting it failed: %s\n", strerror(errno));
			return -1;
		}
		if (!is_dir(MOD_DIR)) {
			fprintf(stderr, "rgbench kmod: " MOD_DIR " is missing after loading\n");
			return -1;
		}
	}
	fd = open(MOD_DIR "/run", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rgbench kmod: cannot open " MOD_DIR "/run: %s\n", strerror(errno));
		return -1;
	}
	do
		n = (int)write(fd, "1\n", 2);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		fprintf(stderr, "rgbench kmod: the run failed: %s (see dmesg)\n", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static bool parse_ulong(const char *s, unsigned long *v, unsigned long max)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return *s && *s != '-' && !errno && *end == '\0' && *v <= max;
}

/* Characters allowed in guard and CPU lists (they go into module params). */
static bool list_ok(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-,_") == strlen(s);
}

static void print_table(const struct rg_resultset *rs, size_t from)
{
	printf("%-22s %-24s %12s %24s %12s %10s %8s  %s\n", "guard", "scenario", "ns/pair(med)",
	       "-noop [95% interval]", "ops", "refusals", "status", "reason");
	for (size_t i = from; i < rs->n; i++) {
		const struct rg_result *r = &rs->rows[i];
		char ns[32], d[64];

		if (isnan(r->ns_median))
			snprintf(ns, sizeof(ns), "-");
		else
			snprintf(ns, sizeof(ns), "%.3f", r->ns_median);
		if (isnan(r->delta_ns))
			snprintf(d, sizeof(d), "-");
		else if (isnan(r->delta_ci_lo))
			snprintf(d, sizeof(d), "%.3f", r->delta_ns);
		else
			snprintf(d, sizeof(d), "%.3f [%.3f, %.3f]", r->delta_ns, r->delta_ci_lo,
				 r->delta_ci_hi);
		printf("%-22s %-24s %12s %24s %12llu %10llu %8s  %s\n", r->guard, r->scenario, ns, d,
		       (unsigned long long)r->ops, (unsigned long long)r->refusals,
		       r->status, r->reason);
	}
}

static bool parse_seconds(const char *s, unsigned long *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || errno || *end || !(v >= 1e-6 && v <= 10))
		return false;
	*ns = (unsigned long)(v * 1e9);
	return true;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "guards", required_argument, NULL, 'g' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "siblings", no_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'l' },
		{ "loops", required_argument, NULL, 'l' },
		{ "duration", required_argument, NULL, 'D' },
		{ "repetitions", required_argument, NULL, 'r' },
		{ "runs", required_argument, NULL, 'r' },
		{ "duty", required_argument, NULL, 'd' },
		{ "duty-ns", required_argument, NULL, 'd' },
		{ "irqs-on", no_argument, NULL, 'O' },
		{ "irqs-off", no_argument, NULL, 'I' },
		{ "irq-iters", required_argument, NULL, 'i' },
		{ "no-nmi", no_argument, NULL, 'N' },
		{ "kdir", required_argument, NULL, 'k' },
		{ "module", required_argument, NULL, 'm' },
		{ "out", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "raw", required_argument, NULL, 'R' },
		{ "from-raw", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, li = 0;
	bool batch = false, irqs_off = false;

	memset(o, 0, sizeof(*o));
	o->guards = "all";
	o->cpus = "all";
	o->loops = 100000;
	o->runs = 5;
	o->irq_iters = 1000;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", lo, &li)) != -1) {
		switch (c) {
		case 'g': o->guards = optarg; break;
		case 'c': o->cpus = optarg; break;
		case 's': o->siblings = true; break;
		case 'O': o->irqs_on = true; break;
		case 'I': irqs_off = true; break;
		case 'N': o->no_nmi = true; break;
		case 'k': o->kdir = optarg; break;
		case 'm': o->module = optarg; break;
		case 'o': o->out = optarg; break;
		case 'j': o->json = optarg; break;
		case 'R': o->raw = optarg; break;
		case 'F': o->from_raw = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); return 1;
		case 't':
			if (!parse_ulong(optarg, &o->threads, 4096) || !o->threads)
				goto bad;
			break;
		case 'l':
			if (!parse_ulong(optarg, &o->loops, 1UL << 40) || !o->loops)
				goto bad;
			batch = true;
			break;
		case 'D':
			if (!parse_seconds(optarg, &o->run_ns))
				goto bad;
			break;
		case 'r':
			if (!parse_ulong(optarg, &o->runs, 100000) || !o->runs)
				goto bad;
			break;
		case 'd':
			if (!parse_ulong(optarg, &o->duty_ns, 1000000))
				goto bad;
			break;
		case 'i':
			if (!parse_ulong(optarg, &o->irq_iters, 10000000))
				goto bad;
			break;
		default:
			fprintf(stderr, "rgbench kmod: unknown or incomplete option '%s' "
				"(see rgbench kmod --help)\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rgbench kmod: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!list_ok(o->guards) || !list_ok(o->cpus)) {
		fprintf(stderr, "rgbench kmod: --guards and --cpus take comma-separated names "
			"or ranges, e.g. --guards rctx,noop --cpus 0-3\n");
		return -1;
	}
	if (o->kdir && o->module) {
		fprintf(stderr, "rgbench kmod: give --kdir or --module, not both\n");
		return -1;
	}
	if (batch && o->run_ns) {
		fprintf(stderr, "rgbench kmod: give --batch or --duration, not both\n");
		return -1;
	}
	if (irqs_off && o->irqs_on) {
		fprintf(stderr, "rgbench kmod: give --irqs-on or --irqs-off, not both\n");
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "rgbench kmod: bad value '%s' for --%s\n", optarg, lo[li].name);
	return -1;
}

static int write_outputs(const struct opts *o, struct rg_resultset *rs, size_t from)
{
	char err[4352];

	if (!o->quiet)
		print_table(rs, from);
	/* Both files are complete and fsync'ed before either is renamed into place. */
	if ((o->out || o->json) && rg_results_write(rs, o->out, o->json, err, sizeof(err))) {
		fprintf(stderr, "rgbench kmod: %s\n", err);
		return -1;
	}
	return 0;
}

static int convert_and_write(const struct opts *o, const char *csv)
{
	struct rg_resultset rs;
	struct rg_env env;
	char err[256];
	int n, nerr = 0, ret = 0;

	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	n = rg_kmod_convert(&rs, csv, &nerr, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "rgbench kmod: %s\n", err);
		ret = 1;
	} else {
		if (write_outputs(o, &rs, 0))
			ret = 1;
		else if (nerr) {
			fprintf(stderr, "rgbench kmod: %d re-entry check(s) failed "
				"(status=error rows)\n", nerr);
			ret = 1;
		}
	}
	rg_results_free(&rs);
	return ret;
}

int rg_kmod_main(int argc, char **argv)
{
	char tmpdir[64] = "", ko[PATH_MAX], params[1024], *csv = NULL, err[256];
	sigset_t block, old, pending;
	struct opts o;
	int ret, interrupted;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	{
		const char *outs[] = { o.out, o.json, o.raw };
		char why[4352];

		ret = rg_output_checkv(outs, 3, why, sizeof(why));
		if (ret) {	/* 2: unusable path; 1: another run is writing it */
			fprintf(stderr, "rgbench kmod: %s\n", why);
			return ret;
		}
	}

	if (o.from_raw) {
		if (read_file(o.from_raw, &csv, err, sizeof(err))) {
			fprintf(stderr, "rgbench kmod: %s\n", err);
			return 1;
		}
		ret = convert_and_write(&o, csv);
		free(csv);
		return ret;
	}

	/* What needs no work first: root, then a kernel that loads modules. */
	if (geteuid() != 0) {
		fprintf(stderr, "rgbench kmod: skipped: loading a kernel module needs root\n");
		return RG_KMOD_SKIP;
	}
	if (access("/proc/modules", F_OK)) {
		fprintf(stderr, "rgbench kmod: skipped: this kernel has no loadable module "
			"support (/proc/modules is absent)\n");
		return RG_KMOD_SKIP;
	}
	if (module_loaded()) {
		fprintf(stderr, "rgbench kmod: %s is already loaded (another run? rmmod it first)\n",
			MOD_NAME);
		return 1;
	}
	if (o.module) {
		if (!is_file(o.module)) {
			fprintf(stderr, "rgbench kmod: no module file %s\n", o.module);
			return 1;
		}
		snprintf(ko, sizeof(ko), "%s", o.module);
	} else {
		char kdir[PATH_MAX];
		struct utsname u;

		if (o.kdir)
			snprintf(kdir, sizeof(kdir), "%s", o.kdir);
		else if (uname(&u) == 0)
			snprintf(kdir, sizeof(kdir), "/lib/modules/%s/build", u.release);
		else
			snprintf(kdir, sizeof(kdir), "/lib/modules/unknown/build");
		ret = build_module(kdir, tmpdir, ko, sizeof(ko));
		if (ret) {
			remove_tmpdir(tmpdir);
			return ret == RG_KMOD_SKIP ? RG_KMOD_SKIP : 1;
		}
	}
	snprintf(params, sizeof(params),
		 "guards=%s cpus=%s threads=%lu siblings=%d loops=%lu run_ns=%lu runs=%lu "
		 "duty_ns=%lu irqs_on=%d irq_iters=%lu nmi=%d",
		 o.guards, o.cpus, o.threads, o.siblings, o.loops, o.run_ns, o.runs,
		 o.duty_ns, o.irqs_on, o.irq_iters, !o.no_nmi);

	/*
	 * From load to unload, hold back the signals a user sends, so that the
	 * module is always unloaded; they are acted on afterwards.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);

	ret = load_module(ko, params);
	if (ret == 0) {
		fprintf(stderr, "rgbench kmod: loaded %s (%s); running\n", ko, params);
		if (trigger_run() == 0 &&
		    read_file(MOD_DIR "/results", &csv, err, sizeof(err)))
			fprintf(stderr, "rgbench kmod: %s\n", err);
		if (unload_module() && !csv)
			ret = -1;
		if (!csv)
			ret = -1;
	}
	remove_tmpdir(tmpdir);
	sigpending(&pending);
	/* The first signal held back decides the exit status, 128 + its number. */
	interrupted = sigismember(&pending, SIGINT) ? SIGINT
		      : sigismember(&pending, SIGTERM) ? SIGTERM
		      : sigismember(&pending, SIGHUP) ? SIGHUP
		      : sigismember(&pending, SIGQUIT) ? SIGQUIT : 0;
	if (interrupted) {
		/* Discard them now that the module is gone; report and stop. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		sigprocmask(SIG_SETMASK, &old, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		fprintf(stderr, "rgbench kmod: interrupted (%s); module unloaded, nothing written\n",
			strsignal(interrupted));
		free(csv);
		return 128 + interrupted;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret == RG_KMOD_SKIP)
		return RG_KMOD_SKIP;
	if (ret) {
		free(csv);
		return 1;
	}
	if (o.raw && write_file_atomic(o.raw, csv, err, sizeof(err))) {
		fprintf(stderr, "rgbench kmod: %s\n", err);
		free(csv);
		return 1;
	}
	ret = convert_and_write(&o, csv);
	free(csv);
	return ret;
}
