/* SPDX-License-Identifier: MIT */
/* Private to kernel/bpf: the attach kinds, the options, the loaded objects, the producers and the run context shared by its files. */
#ifndef RG_BPF_INTERNAL_H
#define RG_BPF_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <linux/types.h>

#include "rg/env.h"
#include "rg/place.h"
#include "rg/trig_common.h"

struct bpf_link;
struct bpf_object;
struct bpf_program;
struct rg_result;
struct rg_resultset;
struct trig_bpf;
struct trig_kfunc_bpf;

#define SUITE "bpf"

#if defined(__x86_64__)
#define SYSCALL_FN "__x64_sys_getpgid"
#elif defined(__aarch64__)
#define SYSCALL_FN "__arm64_sys_getpgid"
#else
#error "rgbench bpf: unsupported architecture"
#endif
#define HELPER_FN "bpf_get_numa_node_id"
#define KFUNC_FN "bpf_modify_return_test_tp"
#define KFUNC_TP "bpf_trigger_tp"

/* ---- what can be measured (kinds.c) ---- */

enum rg_mode { MODE_SYSCALL, MODE_DRIVER, MODE_RECURSE, NR_MODES };
extern const char *const trig_mode_names[NR_MODES];

enum rg_kind {
	K_BASE, K_USER_COUNT, K_DRV_EMPTY, K_DRV_KFUNC, K_DRV_COUNT,	/* baselines */
	K_FENTRY, K_FEXIT, K_FMOD_RET, K_KPROBE, K_TP, K_RAW_TP, K_TP_BTF,
	NR_KINDS
};
#define K_FIRST_ATTACH K_FENTRY

struct kind_info {
	const char *name;
	const char *prog;	/* measured program (NULL: baseline without one) */
	unsigned modes;		/* bit per enum rg_mode where it exists */
	const char *help;
};

#define M(x) (1u << (x))
extern const struct kind_info trig_kinds[NR_KINDS];

static inline bool is_baseline(enum rg_kind k)
{
	return k < K_FIRST_ATTACH;
}

/* Whether variant (k, m) exists: a row of its own. */
static inline bool row_exists(enum rg_kind k, enum rg_mode m)
{
	return trig_kinds[k].modes & M(m);
}

bool uses_kfunc(enum rg_kind k, enum rg_mode m);
enum rg_kind baseline_of(enum rg_kind k, enum rg_mode m);
int pair_of(enum rg_kind k, enum rg_mode m);
const char *role_of(enum rg_kind k);
const char *target_of(enum rg_kind k, enum rg_mode m);

/* libbpf's messages: quiet unless verbose; the last warning and verifier line kept for reasons. */
void trig_messages_init(bool verbose);
extern char trig_last_warn[200];
extern char trig_verifier[160];	/* first line of the last verifier log */

bool trig_has_caps(void);
extern const char trig_priv_msg[];

/* "<ERRNAME>: <kind> <what> <meaning>[; verifier: <line>]" */
void trig_explain(char *buf, size_t size, const char *what, enum rg_kind k, int err);
int trig_kfunc_available(void);
bool trig_tracefs_ready(void);

/* ---- options (cli.c) ---- */

/*
 * How hits are counted (--count), in the program and in userspace alike:
 * percpu: a plain increment of the CPU's (producer's) own padded slot;
 * atomic: one shared counter, atomically incremented (the kernel's bench in 6.1);
 * percpu-atomic: an atomic add on the CPU's own padded slot (the kernel's bench
 * today, trigger_bench.c's inc_counter()). The values are the BPF side's count_mode.
 */
enum count_method { COUNT_PERCPU, COUNT_ATOMIC, COUNT_PERCPU_ATOMIC, NR_COUNTS };
extern const char *const trig_count_names[NR_COUNTS];

#define MAX_TCOUNTS 16

struct opts {
	unsigned modes;			/* bit per mode */
	bool want[NR_KINDS];
	bool explicit_kinds;
	int threads[MAX_TCOUNTS];	/* --threads: producer counts, one set of rows each */
	int nthreads;
	int cpus[RG_MAX_CPUS];		/* --cpus: where producers go, in this order */
	int ncpus;			/* 0: all allowed CPUs in topology order */
	bool allow_shared;		/* --allow-shared-cpus: more producers than CPUs */
	double duration;		/* seconds per sample (window) */
	double warmup;			/* seconds before the first sample */
	int reps;			/* samples per row, over all passes */
	int passes;			/* passes over all rows (at most reps; 1 with --triggers) */
	int batch;			/* driver batch; 0: sized by measurement */
	enum count_method count;
	uint64_t triggers;		/* fixed-count mode: triggers per producer (0: timed) */
	bool all_tasks;			/* syscall mode: count every process's getpgid */
	const char *csv, *json;
	bool verbose;			/* -v: libbpf's messages too */
	int quiet;			/* -q: no progress or row lines; -qq: no 'wrote' line either */
};

/* Set by SIGINT/SIGTERM (rgbench bpf's own flag, or the rgbench command's in the default run). */
extern volatile sig_atomic_t *trig_stop;

static inline bool trig_stopped(void)
{
	return *trig_stop != 0;
}

/* ---- one loaded object, either skeleton, behind the same handles (trig.c) ---- */

struct trig {
	struct trig_bpf *s0;
	struct trig_kfunc_bpf *s1;
	struct bpf_object *obj;
	struct rg_trig_counter *hits;
	__u64 *hits_shared;
	struct bpf_program *measured, *driver;
	struct bpf_link *link;
};

int trig_open(struct trig *t, const struct opts *o, enum rg_kind k, enum rg_mode m, int batch,
	      char *why, size_t wsize);
int trig_attach(struct trig *t, enum rg_kind k, enum rg_mode m, char *why, size_t wsize);
bool trig_detach(struct trig *t);	/* whether a link was attached */
void trig_close(struct trig *t);
int trig_driver_fd(const struct trig *t);
int trig_measured_fd(const struct trig *t);
uint64_t trig_hits(const struct trig *t);
uint64_t trig_misses(const struct trig *t);	/* the measured program's recursion_misses */

/* ---- producers and one sample window (producers.c) ---- */

struct ucounter {
	uint64_t value;
} __attribute__((aligned(128)));

/*
 * The producer loops. Every timed loop counts in userspace too, so that a
 * variant's windows and its baseline's windows run the very same loop and
 * differ only in what is attached (driver-count: in the program run).
 */
enum loop { LOOP_SYSCALL, LOOP_USER_COUNT, LOOP_DRIVER };

/* Allocated by run_alloc(), which also allocates the padded counters (aligned(128)). */
struct run {
	enum loop loop;
	int prog_fd;
	int batch;
	int np;
	uint64_t limit;			/* triggers per producer; UINT64_MAX: until stop */
	const struct rg_place *pin;
	atomic_int ready;		/* producers pinned and waiting for go */
	atomic_int go;
	atomic_int stop;
	atomic_int done;		/* producers out of their loop */
	atomic_int errors;		/* failed bpf_prog_test_run_opts() calls */
	atomic_int first_errno;
	atomic_int unpinned;		/* producers whose pinning failed */
	struct ucounter *ucnt;		/* one per producer: its loop's count, stored */
};

struct producer {
	struct run *run;
	int idx;
	bool started;
	bool have_clk;
	pthread_t tid;
	clockid_t clk;			/* the producer's CPU-time clock */
	long nvcsw;			/* voluntary switches in its loop: stopped or blocked */
};

/* Skip the first 10 ms of a window: threads starting and pinning. */
#define SETTLE_S 0.01
/* Wait 10 ms after a detach before the next window (the link's release, RCU callbacks). */
#define DETACH_SETTLE_S 0.01

struct window {
	double wall, cpu;		/* seconds: wall clock, producers' CPU time (sum) */
	uint64_t events, misses;
	long nvcsw;			/* producers' voluntary switches (0 undisturbed) */
};

struct run *run_alloc(int np);
void run_free(struct run *r);
uint64_t user_hits(struct run *r);
bool sleep_until(double t);
int producers_start(struct run *r, struct producer *prod);
void producers_stop(struct run *r, struct producer *prod);
int run_window(struct run *r, struct producer *prod, const struct trig *t, bool bpf_counted,
	       double seconds, struct window *w);

/* ---- the rows (run.c) and the driver batch (batch.c) ---- */

/* Points of the two-point batch fit: test runs of 1 and of CAL_BATCH events. */
#define CAL_BATCH 1000
/* Windows per point of the two-point fit. */
#define CAL_ROUNDS 3

struct ctx {
	const struct opts *o;
	struct rg_resultset *rs;
	struct rg_place pin;
	int batch;			/* driver batch in use */
	FILE *out;			/* result lines and progress; NULL: quiet */
	int row, nrows;
};

/* Every wanted row: 0, -EINTR (stop requested) or -ENOMEM. */
int trig_run_all(struct ctx *c);

/* ---- one row over the passes (run.c) and its numbers and lines (fill.c) ---- */

/* Passes over all rows at most (--passes); each is one run-level value of a row. */
#define MAX_PASSES 16

/* Per-window values of one side (the row's, or its baseline's), all passes in order. */
struct series {
	double *mops;		/* M events/s, all producers */
	double *ns;		/* wall ns per event per producer: 1e3 / (M/s per producer) */
	double *cpu_ns;		/* producers' CPU ns per event */
	size_t n;
	uint64_t events, misses;
	size_t disturbed;	/* windows in which a producer was stopped or blocked */
	long nvcsw;		/* their voluntary switches, all windows */
};

int series_alloc(struct series *s, size_t n);
void series_free(struct series *s);
void series_add(struct series *s, const struct window *w, int np);

/*
 * One row: the variant, its result row, both sides' samples over every
 * pass; and for the pass being measured, its loaded object and producers.
 */
struct row_run {
	enum rg_kind k;
	enum rg_mode m;
	int np;
	int bk;				/* the paired baseline (pair_of), or -1 */
	bool bpf_a;			/* side A counted by the program, not in userspace */
	bool started;			/* has its result row (index res) */
	bool done;			/* skipped, failed, or measured in every pass */
	bool unpinned;			/* a producer's pinning failed in some pass */
	size_t res;			/* its row in c->rs (an index: the array grows) */
	int npass;			/* passes measured */
	size_t pass_end[MAX_PASSES];	/* side A's samples at the end of each pass */
	double pass_at[MAX_PASSES];	/* when each pass of the row began, s after the first */
	struct series sa, sb;		/* side A (the row), side B (its baseline) */
	/* the pass being measured */
	int fd_a, fd_b;			/* the program side A / side B runs (driver modes) */
	struct trig t;
	struct run *r;
	struct producer *prod;
	char why[256];
};

/* The measured row's numbers from rr's samples and passes. 0 or -ENOMEM. */
int row_fill(struct ctx *c, struct rg_result *row, const struct row_run *rr);
/*
 * A finished row's pinning, and its status and progress line: a failure
 * (err) becomes an error row saying why (then 0); -ENOMEM is passed on.
 * rr->r is the last pass's run.
 */
int row_finish(struct ctx *c, struct row_run *rr, struct rg_result *row, int err);

/* A progress or result line to c->out (nothing when quiet), flushed. */
void trig_say(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * c->batch sized by measurement from windows of win seconds (batch.c); a
 * measurement that cannot be made leaves CAL_BATCH and says why. 0, -EINTR or -ENOMEM.
 */
int trig_size_batch(struct ctx *c, double win);

#endif /* RG_BPF_INTERNAL_H */
