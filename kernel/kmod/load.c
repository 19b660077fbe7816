// SPDX-License-Identifier: MIT
/* Running the module: find or build rgbench_kmod.ko, load it, trigger the run, read its CSV from debugfs, unload it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
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

#include "rg/cmdline.h"
#include "rg/input.h"
#include "rg/kmod.h"
#include "rg/paths.h"
#include "rg/schema.h"
#ifndef RG_KMOD_TRAMP
#define RG_KMOD_TRAMP 0	/* CMake sets 1 when kernel/trig (libbpf) is built */
#endif
#if RG_KMOD_TRAMP
#include "rg/trig.h"
#endif
#include "kmod_int.h"

#define MOD_NAME RG_KMOD_NAME
#define DEBUGFS "/sys/kernel/debug"
#define MOD_DIR DEBUGFS "/" MOD_NAME
/*
 * The module's generated files (rg_kguards.h): a test build's RG_KMOD_GEN_DIR, else this
 * rgbench's (rg/paths.h: the build tree's kernel/kmod/module, or the installed sources).
 */
static const char *gen_dir(void)
{
#ifdef RG_KMOD_GEN_DIR
	return RG_KMOD_GEN_DIR;
#else
	static char dir[PATH_MAX];

	return dir[0] || !rg_path("kmod-gen", dir, sizeof(dir)) ? dir : "(not found)";
#endif
}

int rg_kmod_read_file(const char *path, unsigned int flags, char **out, char *err,
		      size_t errlen)
{
	char why[256];
	size_t len;

	/* The input policy: never blocks on a FIFO, regular files only, size-capped. */
	if (rg_input_read(path, RG_INPUT_MAX_BYTES, flags, out, &len, why, sizeof(why))) {
		const char *parts[3] = { path, *path ? ": " : "", why };
		size_t n = 0;

		for (int i = 0; i < 3; i++)	/* "PATH: why", cut to errlen */
			for (const char *p = parts[i]; *p && n + 1 < errlen; p++)
				err[n++] = *p;
		if (errlen)
			err[n] = '\0';
		return -1;
	}
	/* Text only: a NUL byte would end the CSV there, every row after it dropped. */
	if (strlen(*out) != len) {
		int line = 1;

		for (const char *p = *out; *p; p++)
			line += *p == '\n';
		snprintf(err, errlen, "%s: line %d: a NUL byte (module output is text)", path, line);
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
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

	if (rg_kmod_read_file(from, 0, &data, err, sizeof(err)))
		return -1;
	ret = rg_output_write(to, data, strlen(data), err, sizeof(err));
	free(data);
	return ret;
}

int rg_kmod_source(const char *src, const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", src, name);
	if (is_file(path))
		return 0;
	snprintf(path, len, "%s/%s", gen_dir(), name);
	return is_file(path) ? 0 : -1;
}

/*
 * The module's files, as its Kbuild lists them: Kbuild itself, the .c of
 * every object of rgbench_kmod-y and the headers of rgbench_kmod-headers,
 * from src (or, generated ones, gen_dir()) into tmpdir.
 */
static int copy_sources(const char *src, const char *tmpdir)
{
	char path[PATH_MAX + 64], to[PATH_MAX + 64], err[256], *kbuild, *line, *save = NULL;
	int ret = 0, n = 0;

	if (rg_kmod_source(src, "Kbuild", path, sizeof(path)) ||
	    rg_kmod_read_file(path, 0, &kbuild, err, sizeof(err))) {
		fprintf(stderr, "rgbench kmod: no module Kbuild in %s "
			"(set RG_KMOD_SRC to the kernel/kmod/module directory)\n", src);
		return -1;
	}
	snprintf(to, sizeof(to), "%s/Kbuild", tmpdir);
	ret = rg_output_write(to, kbuild, strlen(kbuild), err, sizeof(err));
	for (line = strtok_r(kbuild, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char *word, *wsave = NULL;

		if (strncmp(line, MOD_NAME "-y :=", strlen(MOD_NAME "-y :=")) &&
		    strncmp(line, MOD_NAME "-headers :=", strlen(MOD_NAME "-headers :=")))
			continue;
		strtok_r(line, " \t", &wsave);			/* the variable */
		strtok_r(NULL, " \t", &wsave);			/* := */
		while (!ret && (word = strtok_r(NULL, " \t", &wsave))) {
			size_t l = strlen(word);

			if (l > 2 && !strcmp(word + l - 2, ".o"))
				word[l - 1] = 'c';		/* an object: its source */
			if (rg_kmod_source(src, word, path, sizeof(path))) {
				fprintf(stderr, "rgbench kmod: module source %s/%s not found (nor in %s; "
					"set RG_KMOD_SRC to the kernel/kmod/module directory)\n",
					src, word, gen_dir());
				ret = -1;
				break;
			}
			snprintf(to, sizeof(to), "%s/%s", tmpdir, word);
			ret = copy_file(path, to);
			n++;
		}
	}
	free(kbuild);
	if (!ret && !n) {
		fprintf(stderr, "rgbench kmod: %s/Kbuild lists no " MOD_NAME "-y objects\n", src);
		ret = -1;
	}
	return ret;
}

/* make's last 2000 bytes, after a failed build. */
static void show_build_log(const char *log)
{
	char *text = NULL, err[64];

	if (!rg_kmod_read_file(log, RG_IN_PSEUDO, &text, err, sizeof(err))) {
		size_t n = strlen(text);

		fputs(n > 2000 ? text + n - 2000 : text, stderr);
		free(text);
	}
}

/*
 * Build the module from src ($RG_KMOD_SRC or rgbench's own sources)
 * against kdir in a fresh temporary directory. 0, RG_KMOD_SKIP (no headers) or -1.
 */
static int build_module(const char *src, const char *kdir, char *tmpdir, char *ko,
			size_t kolen)
{
	char path[PATH_MAX + 64], mflag[PATH_MAX + 64], log[PATH_MAX + 64];
	char *argv[] = { "make", "-s", "-C", (char *)kdir, mflag, "modules", NULL };

	snprintf(path, sizeof(path), "%s/Makefile", kdir);
	if (!is_file(path)) {
		fprintf(stderr, "rgbench kmod: skipped: no kernel build headers at %s "
			"(install the running kernel's, e.g. linux-headers-$(uname -r) or, in a checkout, "
			"scripts/deps.sh kmod; or pass --kdir or --module)\n", kdir);
		return RG_KMOD_SKIP;
	}
	strcpy(tmpdir, "/tmp/rgbench-kmod.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "rgbench kmod: mkdtemp: %s\n", strerror(errno));
		tmpdir[0] = '\0';
		return -1;
	}
	if (copy_sources(src, tmpdir))
		return -1;
	snprintf(mflag, sizeof(mflag), "M=%s", tmpdir);
	snprintf(log, sizeof(log), "%s/build.log", tmpdir);
	fprintf(stderr, "rgbench kmod: building the module against %s\n", kdir);
	if (run_cmd(argv, log)) {
		fprintf(stderr, "rgbench kmod: module build failed against %s; make said:\n", kdir);
		show_build_log(log);
		return -1;
	}
	snprintf(ko, kolen, "%s/%s.ko", tmpdir, MOD_NAME);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* The build directory this run made (mkdtemp), with everything kbuild wrote in it. */
static void remove_tmpdir(const char *dir)
{
	if (!dir[0])
		return;
	if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		fprintf(stderr, "rgbench kmod: note: left build files in %s\n", dir);
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

/* What needs no work first: root, then a kernel that loads modules, then no module left loaded. */
static int check_host(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "rgbench kmod: skipped: loading a kernel module needs root\n");
		return RG_KMOD_SKIP;
	}
	if (access("/proc/modules", F_OK)) {
		fprintf(stderr, "rgbench kmod: skipped: this kernel has no loadable module "
			"support (/proc/modules is absent)\n");
		return RG_KMOD_SKIP;
	}
	if (is_dir("/sys/module/" MOD_NAME)) {
		fprintf(stderr, "rgbench kmod: %s is already loaded (another run? rmmod it first)\n",
			MOD_NAME);
		return RG_EXIT_FAIL;
	}
	return 0;
}

/* The .ko to load: --module, or one built against --kdir or the running kernel. 0, RG_EXIT_SKIP or RG_EXIT_FAIL. */
static int find_module(const struct rg_kmod_run_opts *o, char *tmpdir, char *ko, size_t kolen)
{
	char kdir[PATH_MAX];
	struct utsname u;
	int ret;

	if (o->module) {
		if (!is_file(o->module)) {
			fprintf(stderr, "rgbench kmod: no module file %s\n", o->module);
			return RG_EXIT_FAIL;
		}
		snprintf(ko, kolen, "%s", o->module);
		return 0;
	}
	if (o->kdir)
		snprintf(kdir, sizeof(kdir), "%s", o->kdir);
	else if (uname(&u) == 0)
		snprintf(kdir, sizeof(kdir), "/lib/modules/%s/build", u.release);
	else
		snprintf(kdir, sizeof(kdir), "/lib/modules/unknown/build");
	ret = build_module(o->src, kdir, tmpdir, ko, kolen);
	if (ret) {
		remove_tmpdir(tmpdir);
		return ret == RG_KMOD_SKIP ? RG_EXIT_SKIP : RG_EXIT_FAIL;
	}
	return 0;
}

/*
 * The tramp scenario's program for the module (prog_arg: "FD OFF STRIDE N"),
 * written to debugfs prog, where the module resolves the fd in this process.
 * 0, also when the module says no program can run there (EOPNOTSUPP: a kernel
 * without BPF JIT, or the program not JITed; one line said, the run goes on and
 * the tramp rows say why); -1 with one line said when it refused the program
 * (anything else: not the program it takes, a failure of this build).
 */
static int give_prog(const char *prog_arg)
{
	int fd, n = 0, e;

	if (!prog_arg)
		return 0;
	fd = open(MOD_DIR "/prog", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		do
			n = (int)write(fd, prog_arg, strlen(prog_arg));
		while (n < 0 && errno == EINTR);
	}
	e = errno;
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && n < 0 && e == EOPNOTSUPP) {
		fprintf(stderr, "rgbench kmod: tramp: the module cannot run a BPF program here (%s, see dmesg): its rows are skipped\n",
			strerror(e));
		return 0;
	}
	if (fd < 0 || n < 0) {
		fprintf(stderr, "rgbench kmod: the module refused the BPF program (%s): %s (see dmesg)\n",
			prog_arg, strerror(e));
		return -1;
	}
	return 0;
}

/* Load, give the program, run, read the CSV, unload: 0 with *csv, RG_KMOD_SKIP or -1. */
static int load_run_unload(const char *ko, const char *params, const char *prog_arg, char **csv)
{
	char err[256];
	int ret = load_module(ko, params);

	if (ret)
		return ret;
	fprintf(stderr, "rgbench kmod: loaded %s (%s); running\n", ko, params);
	if (give_prog(prog_arg) == 0 && trigger_run() == 0 &&
	    rg_kmod_read_file(MOD_DIR "/results", RG_IN_PSEUDO, csv, err, sizeof(err)))
		fprintf(stderr, "rgbench kmod: %s\n", err);
	unload_module();
	return *csv ? 0 : -1;
}

/*
 * With --scenarios tramp: the trigger bench's raw_tp program (kernel/trig),
 * loaded for the module; its "FD OFF STRIDE N" in arg. Without it (no BPF in
 * this build, or the kernel refused the program) the module's tramp rows say why.
 */
static void open_prog(const struct rg_kmod_run_opts *o, void **prog, char *arg, size_t len,
		      const char **argp)
{
	*argp = NULL;
	*prog = NULL;
	if (!strstr(o->scenarios, "tramp"))
		return;
#if RG_KMOD_TRAMP
	{
		static struct rg_trig_prog p;
		char why[256];

		if (rg_trig_open_rawtp(&p, why, sizeof(why))) {
			fprintf(stderr, "rgbench kmod: tramp: cannot load the BPF program (%s): "
				"its rows are skipped\n", why);
			return;
		}
		snprintf(arg, len, "%d %zu %zu %u", p.fd, p.hits_off, p.hits_stride, p.hits_n);
		*argp = arg;
		*prog = &p;
	}
#else
	(void)arg;
	(void)len;
	fprintf(stderr, "rgbench kmod: tramp: this rgbench was built without BPF "
		"(kernel/trig): its rows are skipped\n");
#endif
}

static void close_prog(void *prog)
{
#if RG_KMOD_TRAMP
	if (prog)
		rg_trig_close(prog);
#else
	(void)prog;
#endif
}

/* The stop signals held back from load to unload. */
static const int held_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NHELD (int)(sizeof(held_signals) / sizeof(held_signals[0]))

/* The first held-back signal pending (in this order), or 0. */
static int pending_signal(void)
{
	sigset_t pending;

	sigpending(&pending);
	for (int i = 0; i < NHELD; i++)
		if (sigismember(&pending, held_signals[i]))
			return held_signals[i];
	return 0;
}

/* Discard the pending stop signals and restore the mask and the actions set before (the start-up handler). */
static void drop_held_signals(const sigset_t *old)
{
	struct sigaction was[NHELD];

	for (int i = 0; i < NHELD; i++)
		sigaction(held_signals[i], &(struct sigaction){ .sa_handler = SIG_IGN }, &was[i]);
	sigprocmask(SIG_SETMASK, old, NULL);
	for (int i = 0; i < NHELD; i++)
		sigaction(held_signals[i], &was[i], NULL);
}

int rg_kmod_run(const struct rg_kmod_run_opts *o, char **csv)
{
	char tmpdir[64] = "", ko[PATH_MAX], params[1024], prog_arg[96];
	const char *prog_argp;
	sigset_t block, old;
	void *prog;
	int ret, sig;

	*csv = NULL;
	ret = check_host();
	if (!ret)
		ret = find_module(o, tmpdir, ko, sizeof(ko));
	if (ret)
		return ret;
	snprintf(params, sizeof(params),
		 "guards=%s cpus=%s threads=%lu siblings=%d loops=%lu run_ns=%lu runs=%lu "
		 "duty_ns=%lu duty_in_ns=%lu irqs_on=%d irq_iters=%lu nmi=%d%s%s%s",
		 o->guards, o->cpus, o->threads, o->siblings, o->loops, o->run_ns, o->runs,
		 o->duty_ns, o->duty_in_ns, o->irqs_on, o->irq_iters, !o->no_nmi,
		 strcmp(o->scenarios, "loop") ? " scenarios=" : "",
		 strcmp(o->scenarios, "loop") ? o->scenarios : "",
		 o->ladder ? " ladder=1" : "");	/* only when asked: a --module built before has no ladder */
	open_prog(o, &prog, prog_arg, sizeof(prog_arg), &prog_argp);
	/*
	 * From load to unload, hold back the signals a user sends, so that the
	 * module is always unloaded; they are acted on afterwards.
	 */
	sigemptyset(&block);
	for (int i = 0; i < NHELD; i++)
		sigaddset(&block, held_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	ret = load_run_unload(ko, params, prog_argp, csv);
	close_prog(prog);
	remove_tmpdir(tmpdir);
	/* The first signal held back decides the exit status, 128 + its number. */
	sig = pending_signal();
	if (sig) {
		/* Discard them now that the module is gone; report and stop. */
		drop_held_signals(&old);
		fprintf(stderr, "rgbench kmod: interrupted (%s); module unloaded, nothing written\n",
			strsignal(sig));
		free(*csv);
		*csv = NULL;
		return RG_EXIT_SIGNAL + sig;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret == RG_KMOD_SKIP)
		return RG_EXIT_SKIP;
	if (ret) {
		free(*csv);
		*csv = NULL;
		return RG_EXIT_FAIL;
	}
	return RG_EXIT_OK;
}
