/* SPDX-License-Identifier: MIT */
/* rgbench's one command-line kit: exit codes, messages, numbers, durations, lists, signals, option words. */
#ifndef RG_CMDLINE_H
#define RG_CMDLINE_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "rg/cpu_limit.h"

/*
 * Exit-code policy, the same for rgbench and every subcommand:
 *   0        ok: the run finished (rows the system refused are 'skipped' rows)
 *   1        failure: I/O error, a check failed, the run could not complete
 *   2        usage: a bad option or value, rejected before any work
 *   77       skipped: nothing could run here (no privilege, no kernel headers)
 *   128+sig  interrupted by SIGINT (130), SIGTERM (143), SIGHUP (129) or
 *            SIGQUIT (131); nothing written
 */
enum rg_exit {
	RG_EXIT_OK = 0,
	RG_EXIT_FAIL = 1,
	RG_EXIT_USAGE = 2,
	RG_EXIT_SKIP = 77,
	RG_EXIT_SIGNAL = 128,
};

/*
 * Messages. Every message is one line on stderr that starts with the program
 * name ("rgbench", "rgbench bpf"; default "rgbench"). The pointer is kept,
 * not copied: pass a string literal. What follows the name is made one
 * printable line (rg_str_printable(), rg/text.h): an option value or a file
 * name holding a newline, a tab or an escape sequence is echoed with ' ' or
 * '?' in their place.
 */
void rg_cl_set_prog(const char *prog);
const char *rg_cl_prog(void);
/* "<prog>: <msg> (see <prog> --help)"; returns RG_EXIT_USAGE. */
int rg_cl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<prog>: <msg>"; returns RG_EXIT_FAIL. */
int rg_cl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Open files. Every command needs descriptors beyond stdio: output locks and
 * temporary files, hwloc and libperf, BPF objects, Google Benchmark's sysfs
 * reads (it holds two cache files open at once and exits silently when the
 * second open fails). rg_cl_fd_budget() raises the soft RLIMIT_NOFILE towards
 * the hard limit (at most RG_FD_RAISE) and, when the hard limit is below
 * RG_FD_NEED, prints "<prog>: needs N open files, ulimit -n allows M: raise
 * the limit" and returns RG_EXIT_USAGE; else 0. Called once, before any work.
 */
#define RG_FD_NEED 64
#define RG_FD_RAISE 65536
int rg_cl_fd_budget(void);

/*
 * Values. Each parser takes the option's spelling (flag, e.g. "--threads")
 * and its text (s), stores the value and returns 0; or prints
 *   "<prog>: <flag>: <what is wrong> (got '<s>')"
 * stores nothing and returns -1 (the caller then exits RG_EXIT_USAGE).
 * Numbers are decimal only: optional leading blanks (as strtol() skips them),
 * an optional sign (no '-' for rg_cl_u64), digits, for doubles an optional
 * fraction and exponent (1.5, .5, 2e-3). Rejected: "", trailing blanks or
 * junk, hex ("0x10", "0x1p3"), "nan", "inf", overflow.
 */
int rg_cl_long(const char *flag, const char *s, long lo, long hi, long *out);
int rg_cl_int(const char *flag, const char *s, int lo, int hi, int *out);
int rg_cl_u64(const char *flag, const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
int rg_cl_double(const char *flag, const char *s, double lo, double hi, double *out);
/*
 * A duration in seconds: a decimal number, then no unit (seconds) or one of
 * s, ms, us, ns: "1.5", "1.5s", "200ms", "50us", "100ns". lo and hi are in
 * seconds.
 */
int rg_cl_duration(const char *flag, const char *s, double lo, double hi, double *out_s);
/* A duration for a progress line into buf: "42 s" under 100 s, else "3m05s"; negative or NaN as 0. */
void rg_cl_say_seconds(char *buf, size_t len, double sec);

/*
 * A file name (an input or an output): stores s and returns 0; an empty s is
 * "<prog>: <flag>: an empty file name (see <prog> --help)", -1. The one
 * wording for an empty name, whatever the option and the command.
 */
int rg_cl_file(const char *flag, const char *s, const char **out);

/*
 * Integer lists: comma-separated integers in [lo, hi], "1,2,4-8" with
 * RG_CL_LIST_RANGES (a-b, a <= b, both ends in [lo, hi]). No empty element
 * ("", ",1", "1,", "1,,2"), no "1-"; a value listed twice is an error unless
 * RG_CL_LIST_DUPS. Values are stored in the order given; at most max.
 * Returns the number of values (>= 1) or -1 after the one-line message.
 */
enum rg_cl_list_flags {
	RG_CL_LIST_RANGES = 1 << 0,	/* accept a-b */
	RG_CL_LIST_DUPS = 1 << 1,	/* a value may appear more than once */
};
int rg_cl_int_list(const char *flag, const char *s, int *out, int max, long lo, long hi,
		   unsigned int flags);
/*
 * Duty levels, ns of work per traced call split into the part inside the
 * guarded region and the part after it: comma-separated elements, each
 * "IN+OUT" (both integers >= 0) or "T" alone, the default split: in = T / 2
 * (rounded down), out = T - in. Every total in [0, hi] and listed once.
 * Stores total[i] and in[i]; returns the count (>= 1) or -1 after the
 * one-line message.
 */
int rg_cl_duty_list(const char *flag, const char *s, int *total, int *in, int max, long hi);
/* A CPU list: ranges, no duplicates, each CPU in [0, RG_MAX_CPUS). */
int rg_cl_cpu_list(const char *flag, const char *s, int *out, int max);

/*
 * Name lists: "a,b,c" or "all" (possibly among others) against names[0..count).
 * Clears sel[], then sets sel[i] for every name listed ("all": every entry).
 * An unknown or empty name: -1 after a message listing the valid names.
 * Returns the number of entries selected.
 */
int rg_cl_names(const char *flag, const char *s, const char *const *names, int count,
		bool *sel);

/*
 * The exit status after flushing stdout: rc, or RG_EXIT_FAIL after
 * "<prog>: cannot write the standard output: <why>" when a write to stdout
 * failed (>/dev/full, a closed pipe) and rc did not already say something
 * worse. Every command returns through it (tools/rgbench.c), so --list,
 * --plan and --help lose no output silently.
 */
int rg_cl_stdout_status(int rc);

/*
 * Write a whole page (len bytes) to stdout and flush it: RG_EXIT_OK, or
 * RG_EXIT_FAIL after "<prog>: cannot write the standard output: <errno>".
 * A block larger than stdout's buffer fails inside fwrite(), after which a
 * flush has nothing left to fail on: the errno is taken where it happens,
 * and the stream's error is cleared so rg_cl_stdout_status() does not say
 * it a second time.
 */
int rg_cl_stdout_write(const void *buf, size_t len);

/* Seconds on CLOCK_MONOTONIC (never goes back; unrelated to wall time). */
double rg_now_s(void);

/*
 * Stop signals. Installs one handler for SIGINT, SIGTERM, SIGHUP (a dropped
 * SSH session) and SIGQUIT (sigaction, no SA_RESTART, so a blocking call
 * returns EINTR) that stores the signal number in *stop (if stop is not
 * NULL) and in the kit's own record; both start at 0 here. The handler only
 * stores a sig_atomic_t: async-signal-safe. SIGPIPE is ignored: a closed
 * output stream makes writes fail with EPIPE (reported where it matters)
 * instead of killing a run that has measured.
 * Returns 0, or -1 with errno from sigaction.
 */
int rg_cl_catch_stop_signals(volatile sig_atomic_t *stop);
/*
 * Stop signals from the first instruction on (tools/rgbench.c, before
 * anything is created): until a command installs its own handling with
 * rg_cl_catch_stop_signals() (or for good, in one that never does), a stop
 * signal calls cleanup (async-signal-safe; NULL for none: the output
 * policy's rg_output_cleanup_signal(), which removes this process's lock
 * and temporary files), prints "<prog>: interrupted by SIGTERM while
 * starting; nothing written" (only the process that called this: a forked
 * child, whose parent reports, exits without a word) and exits 128 + the
 * signal. SIGXFSZ is
 * ignored from here on: a write beyond ulimit -f fails with EFBIG, which
 * the writers report, instead of killing the process mid-write.
 * Returns 0, or -1 with errno from sigaction.
 */
int rg_cl_catch_startup_signals(void (*cleanup)(void));
/*
 * In each program's main file: the start-up handling from a constructor,
 * before main and before the libraries' later initialisers. Every program
 * (rgbench, rgbench-bpf, rgbench-kmod, rgbench-report) says
 *	RG_CL_STARTUP_SIGNALS(rg_output_cleanup_signal);
 */
#define RG_CL_STARTUP_SIGNALS(cleanup)						\
	__attribute__((constructor(101))) static void rg_cl_startup_signals_(void)	\
	{									\
		rg_cl_catch_startup_signals(cleanup);				\
	}
/* 128 + the last stop signal caught (130 SIGINT, 143 SIGTERM, 129, 131), or 0. */
int rg_cl_signal_status(void);
/* "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGPIPE", else "a signal": for messages. */
const char *rg_cl_signal_name(int sig);
/*
 * After a stop signal, for a command that then writes nothing:
 * "<prog>: interrupted by SIGHUP; nothing written", and returns 128 + the
 * signal (rg_cl_signal_status()).
 */
int rg_cl_interrupted(void);

/*
 * getopt_long. rg_cl_getopt_reset() before a subcommand's getopt_long loop
 * (glibc: optind = 0 starts over completely, also mid-cluster state).
 * rg_cl_option_error() turns getopt_long's '?' or ':' (optstring starting
 * with ':' and opterr = 0) into one usage line; returns RG_EXIT_USAGE.
 */
void rg_cl_getopt_reset(void);
int rg_cl_option_error(int c, char *const *argv);

/*
 * The common option words, spelled once: every suite uses these for the
 * same meaning. --out and --json always take a required argument. val is
 * getopt_long's return value; RG_CL_O_* are free ones above any character
 * (a suite keeping a short letter, e.g. -o, passes 'o'). An old spelling
 * stays as an alias by giving it the same val:
 *	RG_CL_OPT_THREADS(RG_CL_O_THREADS),
 *	{ "producers", required_argument, NULL, RG_CL_O_THREADS },
 */
enum rg_cl_opt_val {
	RG_CL_O_OUT = 0x1000, RG_CL_O_JSON, RG_CL_O_THREADS, RG_CL_O_CPUS, RG_CL_O_DURATION,
	RG_CL_O_REPETITIONS, RG_CL_O_WARMUP, RG_CL_O_BATCH, RG_CL_O_QUIET, RG_CL_O_HELP,
	RG_CL_O_SILENT,
	RG_CL_O__FIRST_FREE,	/* a suite's own values start here */
};
#define RG_CL_OPT_OUT(val)		{ "out", required_argument, NULL, (val) }	/* FILE.csv */
#define RG_CL_OPT_JSON(val)		{ "json", required_argument, NULL, (val) }	/* FILE.json */
#define RG_CL_OPT_THREADS(val)		{ "threads", required_argument, NULL, (val) }	/* N[,N...] */
#define RG_CL_OPT_CPUS(val)		{ "cpus", required_argument, NULL, (val) }	/* LIST */
#define RG_CL_OPT_DURATION(val)		{ "duration", required_argument, NULL, (val) }	/* T */
#define RG_CL_OPT_REPETITIONS(val)	{ "repetitions", required_argument, NULL, (val) } /* N */
#define RG_CL_OPT_WARMUP(val)		{ "warmup", required_argument, NULL, (val) }	/* T */
#define RG_CL_OPT_BATCH(val)		{ "batch", required_argument, NULL, (val) }	/* N */
#define RG_CL_OPT_QUIET(val)		{ "quiet", no_argument, NULL, (val) }
/*
 * --quiet (-q): no progress lines; the line naming each file written stays on
 * stderr. Twice (-qq) or --silent: that line goes too (errors never do).
 */
#define RG_CL_OPT_SILENT(val)		{ "silent", no_argument, NULL, (val) }
#define RG_CL_OPT_HELP(val)		{ "help", no_argument, NULL, (val) }

/*
 * The words every measuring command (rgbench, bpf, kmod) takes, each with
 * the kit's own value; a command adds --help, its old spellings and its own.
 */
#define RG_CL_OPTS_MEASURE						\
	RG_CL_OPT_THREADS(RG_CL_O_THREADS),				\
	RG_CL_OPT_CPUS(RG_CL_O_CPUS),					\
	RG_CL_OPT_DURATION(RG_CL_O_DURATION),				\
	RG_CL_OPT_REPETITIONS(RG_CL_O_REPETITIONS),			\
	RG_CL_OPT_BATCH(RG_CL_O_BATCH),					\
	RG_CL_OPT_OUT(RG_CL_O_OUT),					\
	RG_CL_OPT_JSON(RG_CL_O_JSON),					\
	RG_CL_OPT_QUIET(RG_CL_O_QUIET),					\
	RG_CL_OPT_SILENT(RG_CL_O_SILENT)

#endif /* RG_CMDLINE_H */
