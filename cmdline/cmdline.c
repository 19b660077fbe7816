// SPDX-License-Identifier: MIT
/* The command-line kit: messages, numbers, durations, the monotonic clock, stop signals, getopt. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rg/cmdline.h"
#include "rg/text.h"
#include "cmdline_int.h"

static const char *cl_prog = "rgbench";

void rg_cl_set_prog(const char *prog)
{
	cl_prog = prog && *prog ? prog : "rgbench";
}

const char *rg_cl_prog(void)
{
	return cl_prog;
}

/*
 * One line "<prog>: <head><msg><tail>\n", written with one call. The line is
 * what the terminal gets of option values and file names: made printable
 * (rg_str_printable()), so a newline, a tab or an escape sequence in a value
 * can neither split the message nor reach the terminal.
 */
static void cl_vprint(const char *head, const char *tail, const char *fmt, va_list ap)
{
	char msg[1024], line[2048], clean[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(line, sizeof(line), "%s%s%s", head, msg, tail);
	rg_str_printable(clean, sizeof(clean), line);
	fprintf(stderr, "%s: %s\n", cl_prog, clean);
}

int rg_cl_fd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;	/* no limit to read: nothing to raise */
	if (rl.rlim_cur < RG_FD_RAISE && rl.rlim_cur < rl.rlim_max) {
		struct rlimit up = rl;

		up.rlim_cur = rl.rlim_max < RG_FD_RAISE ? rl.rlim_max : RG_FD_RAISE;
		if (!setrlimit(RLIMIT_NOFILE, &up))
			rl = up;
	}
	if (rl.rlim_cur >= RG_FD_NEED)
		return 0;
	fprintf(stderr, "%s: needs %d open files, ulimit -n allows %llu: raise the limit\n",
		rg_cl_prog(), RG_FD_NEED, (unsigned long long)rl.rlim_cur);
	return RG_EXIT_USAGE;
}

int rg_cl_usage_error(const char *fmt, ...)
{
	char tail[128];
	va_list ap;

	snprintf(tail, sizeof(tail), " (see %s --help)", cl_prog);
	va_start(ap, fmt);
	cl_vprint("", tail, fmt, ap);
	va_end(ap);
	return RG_EXIT_USAGE;
}

int rg_cl_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cl_vprint("", "", fmt, ap);
	va_end(ap);
	return RG_EXIT_FAIL;
}

int rg_cl_bad_value(const char *flag, const char *s, const char *fmt, ...)
{
	char head[128], tail[512];
	va_list ap;

	snprintf(head, sizeof(head), "%s: ", flag);
	snprintf(tail, sizeof(tail), " (got '%s')", s);
	va_start(ap, fmt);
	cl_vprint(head, tail, fmt, ap);
	va_end(ap);
	return -1;
}

static size_t cl_digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

/* Leading blanks, skipped as strtol() and strtod() do (the parsers this kit replaces took them). */
static size_t cl_blanks(const char *s)
{
	size_t i = 0;

	while (isspace((unsigned char)s[i]))
		i++;
	return i;
}

/*
 * Length of the decimal number s starts with: [blanks][+-]digits, and for
 * real numbers also [+-]digits.digits, .digits, then e[+-]digits; 0 if none.
 */
static size_t cl_decimal(const char *s, bool real)
{
	size_t i = cl_blanks(s), d, e;

	if (s[i] == '+' || s[i] == '-')
		i++;
	d = cl_digits(s + i);
	i += d;
	if (!real)
		return d ? i : 0;
	if (s[i] == '.') {
		size_t f = cl_digits(s + i + 1);

		i += 1 + f;
		d += f;
	}
	if (!d)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;

		if (s[j] == '+' || s[j] == '-')
			j++;
		e = cl_digits(s + j);
		if (e)
			i = j + e;
	}
	return i;
}

int rg_cl_scan_long(const char *s, long *v)
{
	size_t n = cl_decimal(s, false);

	if (!n || s[n])
		return -1;
	errno = 0;
	*v = strtol(s, NULL, 10);
	return errno ? -2 : 0;
}

int rg_cl_long(const char *flag, const char *s, long lo, long hi, long *out)
{
	long v = 0;
	int rc = rg_cl_scan_long(s, &v);

	if (rc || v < lo || v > hi)
		return rg_cl_bad_value(flag, s, "expected an integer in [%ld, %ld]", lo, hi);
	*out = v;
	return 0;
}

int rg_cl_int(const char *flag, const char *s, int lo, int hi, int *out)
{
	long v = 0;

	if (rg_cl_long(flag, s, lo, hi, &v))
		return -1;
	*out = (int)v;
	return 0;
}

int rg_cl_u64(const char *flag, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	size_t n = cl_decimal(s, false);
	unsigned long long v = 0;

	if (s[cl_blanks(s)] == '-')	/* strtoull() would negate it */
		n = 0;
	if (n && !s[n]) {
		errno = 0;
		v = strtoull(s, NULL, 10);
	}
	if (!n || s[n] || errno || v < lo || v > hi)
		return rg_cl_bad_value(flag, s, "expected an integer in [%" PRIu64 ", %" PRIu64 "]",
				       lo, hi);
	*out = v;
	return 0;
}

int rg_cl_double(const char *flag, const char *s, double lo, double hi, double *out)
{
	size_t n = cl_decimal(s, true);
	double v = 0;

	if (n && !s[n]) {
		errno = 0;
		v = strtod(s, NULL);
	}
	if (!n || s[n] || errno || !(v >= lo && v <= hi))
		return rg_cl_bad_value(flag, s, "expected a number in [%g, %g]", lo, hi);
	*out = v;
	return 0;
}

static const struct {
	const char *unit;
	double scale;
} cl_units[] = {
	{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
};

int rg_cl_duration(const char *flag, const char *s, double lo, double hi, double *out_s)
{
	size_t n = cl_decimal(s, true);
	double v;

	for (size_t u = 0; n && u < sizeof(cl_units) / sizeof(cl_units[0]); u++) {
		if (strcmp(s + n, cl_units[u].unit))
			continue;
		errno = 0;
		v = strtod(s, NULL) * cl_units[u].scale;
		if (errno || !(v >= lo && v <= hi))
			break;
		*out_s = v;
		return 0;
	}
	return rg_cl_bad_value(flag, s, "expected a number of seconds in [%g, %g], or with a "
			       "unit: 1.5s, 200ms, 50us, 100ns", lo, hi);
}

double rg_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Written only by the handler (and reset before it is installed). */
static volatile sig_atomic_t cl_signo;
static volatile sig_atomic_t *cl_stop;

static void cl_on_stop(int sig)
{
	cl_signo = sig;
	if (cl_stop)
		*cl_stop = sig;
}

static void (*cl_cleanup)(void);
static pid_t cl_startup_pid;	/* the process that says it: a forked child (a --runs worker) exits quietly */

/* Start-up: remove what was made, one line, exit 128 + sig; all async-signal-safe. */
static void cl_on_stop_startup(int sig)
{
	const char *prog = rg_cl_prog(), *name = rg_cl_signal_name(sig);

	if (cl_cleanup)
		cl_cleanup();
	if (getpid() != cl_startup_pid)
		_exit(RG_EXIT_SIGNAL + sig);
	if (write(2, prog, strlen(prog)) < 0 || write(2, ": interrupted by ", 17) < 0 ||
	    write(2, name, strlen(name)) < 0 || write(2, " while starting; nothing written\n", 33) < 0)
		_exit(RG_EXIT_SIGNAL + sig);
	_exit(RG_EXIT_SIGNAL + sig);
}

int rg_cl_catch_startup_signals(void (*cleanup)(void))
{
	struct sigaction sa;

	cl_cleanup = cleanup;
	cl_startup_pid = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cl_on_stop_startup;
	sigfillset(&sa.sa_mask);	/* one handler at a time: the first signal decides */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL) || sigaction(SIGQUIT, &sa, NULL))
		return -1;
	/*
	 * ulimit -f: a write beyond it fails with EFBIG (the writer's "cannot
	 * write FILE: File too large", its temporary file removed) instead of
	 * SIGXFSZ killing the process with the temporary file half-written.
	 */
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGXFSZ, &sa, NULL) ? -1 : 0;
}

int rg_cl_file(const char *flag, const char *s, const char **out)
{
	if (!*s)
		return rg_cl_usage_error("%s: an empty file name", flag), -1;
	*out = s;
	return 0;
}

int rg_cl_catch_stop_signals(volatile sig_atomic_t *stop)
{
	struct sigaction sa;

	cl_signo = 0;
	cl_stop = stop;
	if (stop)
		*stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cl_on_stop;	/* sa_flags 0: no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL) || sigaction(SIGQUIT, &sa, NULL))
		return -1;
	/*
	 * A closed progress stream (rgbench ... | head -1) must not end a run
	 * that has measured: writes there fail with EPIPE instead, and the
	 * results are still written.
	 */
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL) ? -1 : 0;
}

const char *rg_cl_signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	case SIGPIPE: return "SIGPIPE";
	}
	return "a signal";
}

int rg_cl_signal_status(void)
{
	int sig = cl_signo;

	return sig ? RG_EXIT_SIGNAL + sig : 0;
}

int rg_cl_interrupted(void)
{
	rg_cl_error("interrupted by %s; nothing written", rg_cl_signal_name(cl_signo));
	return rg_cl_signal_status();
}

void rg_cl_getopt_reset(void)
{
	optind = 0;
}

int rg_cl_option_error(int c, char *const *argv)
{
	const char *a = optind > 0 ? argv[optind - 1] : "";

	if (c == ':')
		return rg_cl_usage_error("option '%s' needs a value", a);
	if (strncmp(a, "--", 2) && optopt > 0 && optopt < 256)
		return rg_cl_usage_error("unknown option '-%c'", optopt);
	return rg_cl_usage_error("unknown option '%s'", a);
}

int rg_cl_stdout_write(const void *buf, size_t len)
{
	if (fwrite(buf, 1, len, stdout) == len && !fflush(stdout))
		return RG_EXIT_OK;
	rg_cl_error("cannot write the standard output: %s", strerror(errno));
	clearerr(stdout);
	return RG_EXIT_FAIL;
}

int rg_cl_stdout_status(int rc)
{
	/* fflush() first: buffered output not yet written fails only now. */
	int e = fflush(stdout) ? errno : 0;

	if (!e && !ferror(stdout))
		return rc;
	if (rc == RG_EXIT_OK)
		rc = rg_cl_error("cannot write the standard output: %s",
				 e ? strerror(e) : "a write failed");
	return rc;
}

void rg_cl_say_seconds(char *buf, size_t len, double sec)
{
	if (!(sec >= 0))
		sec = 0;
	if (sec < 100)
		snprintf(buf, len, "%.0f s", sec);
	else
		snprintf(buf, len, "%dm%02ds", (int)(sec / 60), (int)(sec - 60 * (long)(sec / 60)));
}
