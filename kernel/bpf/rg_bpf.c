// SPDX-License-Identifier: MIT
/* rgbench bpf: trig-* style BPF trigger bench (libbpf) with recursion-miss counts, in the shared schema. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/capability.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#if RG_HAVE_HWLOC
#include "rg/platform.h"
#endif

#include "rg/env.h"
#include "rg/results.h"
#include "rg/bpf.h"
#include "trig_common.h"
#include "trig.skel.h"
#include "trig_kfunc.skel.h"

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

/* ---- what can be measured ---- */

enum rg_mode { MODE_SYSCALL, MODE_DRIVER, MODE_RECURSE, NR_MODES };
static const char *const mode_names[NR_MODES] = { "syscall", "driver", "recurse" };

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
static const struct kind_info kinds[NR_KINDS] = {
	[K_BASE] = { "base", NULL, M(MODE_SYSCALL),
		"getpgid() with nothing attached, counted in userspace" },
	[K_USER_COUNT] = { "user-count", NULL, M(MODE_SYSCALL),
		"userspace counting loop, no syscall (harness floor)" },
	[K_DRV_EMPTY] = { "driver-empty", NULL, M(MODE_DRIVER),
		"driver calls " HELPER_FN "() batch times, nothing attached" },
	[K_DRV_KFUNC] = { "driver-kfunc", NULL, M(MODE_DRIVER),
		"driver calls kfunc " KFUNC_FN "() batch times, nothing attached (6.10+)" },
	[K_DRV_COUNT] = { "driver-count", "drv_count", M(MODE_DRIVER),
		"driver calls " HELPER_FN "() and counts in BPF, inline, batch times, nothing attached" },
	[K_FENTRY] = { "fentry", "trig_fentry", M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE),
		"fentry on " SYSCALL_FN " / " HELPER_FN },
	[K_FEXIT] = { "fexit", "trig_fexit", M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE),
		"fexit on " SYSCALL_FN " / " HELPER_FN },
	[K_FMOD_RET] = { "fmod_ret", "trig_fmod_ret", M(MODE_SYSCALL) | M(MODE_DRIVER),
		"fmod_ret on " SYSCALL_FN " / " KFUNC_FN " (returns 0)" },
	[K_KPROBE] = { "kprobe", "trig_kprobe", M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE),
		"kprobe on " SYSCALL_FN " / " HELPER_FN },
	[K_TP] = { "tp", "trig_tp", M(MODE_SYSCALL) | M(MODE_DRIVER),
		"tracepoint syscalls/sys_enter_getpgid / bpf_test_run/" KFUNC_TP },
	[K_RAW_TP] = { "raw_tp", "trig_raw_tp", M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE),
		"raw_tp sys_enter (id filtered) / " KFUNC_TP },
	[K_TP_BTF] = { "tp_btf", "trig_tp_btf", M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE),
		"tp_btf sys_enter (id filtered) / " KFUNC_TP },
};

static bool is_baseline(enum rg_kind k)
{
	return k < K_FIRST_ATTACH;
}

/* Which driver a driver/recurse variant runs: the helper or the kfunc one. */
static bool uses_kfunc(enum rg_kind k, enum rg_mode m)
{
	if (m == MODE_SYSCALL)
		return false;
	return k == K_DRV_KFUNC || k == K_FMOD_RET || k == K_TP || k == K_RAW_TP ||
	       k == K_TP_BTF;
}

/* The baseline an attach type's ns-per-event is measured over. */
static enum rg_kind baseline_of(enum rg_kind k, enum rg_mode m)
{
	if (m == MODE_SYSCALL)
		return K_BASE;
	return uses_kfunc(k, m) ? K_DRV_KFUNC : K_DRV_EMPTY;
}

/*
 * The row a variant is measured against in alternating windows, or -1: every
 * attach type against the baseline of its trigger path, driver-count against
 * driver-empty (the same helper loop without the inline count). The other
 * baselines are rows of their own, without a delta.
 */
static int pair_of(enum rg_kind k, enum rg_mode m)
{
	if (k == K_DRV_COUNT)
		return K_DRV_EMPTY;
	if (is_baseline(k))
		return -1;
	return (int)baseline_of(k, m);
}

/*
 * The role column of a BPF row: the recursion guard the kernel runs at that
 * hook. fentry/fexit/fmod_ret (__bpf_prog_enter_recur) and raw_tp/tp_btf
 * (__bpf_trace_run) check the program's own per-CPU prog->active; kprobe and
 * classic tracepoints (trace_call_bpf) check the global per-CPU
 * bpf_prog_active. Baselines run no program guard: "baseline".
 */
static const char *role_of(enum rg_kind k)
{
	if (is_baseline(k))
		return "baseline";
	return k == K_TP || k == K_KPROBE ? "bpf-prog-active" : "prog-active";
}

/* ---- options ---- */

enum count_method { COUNT_PERCPU, COUNT_ATOMIC };

#define MAX_TCOUNTS 16

struct opts {
	unsigned modes;			/* bit per mode */
	bool want[NR_KINDS];
	bool explicit_kinds;
	int threads[MAX_TCOUNTS];	/* --threads: producer counts, one set of rows each */
	int nthreads;
	int cpus[RG_TRIG_MAX_CPUS];	/* --cpus: where producers go, in this order */
	int ncpus;			/* 0: all allowed CPUs in topology order */
	bool allow_shared;		/* --allow-shared-cpus: more producers than CPUs */
	double duration;		/* seconds per sample (window) */
	double warmup;			/* seconds before the first sample */
	int reps;			/* samples per row */
	int batch;			/* driver batch; 0: sized by measurement */
	enum count_method count;
	uint64_t triggers;		/* fixed-count mode: triggers per producer (0: timed) */
	bool all_tasks;			/* syscall mode: count every process's getpgid */
	const char *csv, *json;
	bool verbose;
};

/* Kernel-bench defaults: 1 s warm-up, 5 samples of 1 s, one producer. */
static void opts_default(struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->modes = M(MODE_SYSCALL) | M(MODE_DRIVER);
	for (int k = 0; k < NR_KINDS; k++)
		o->want[k] = true;
	o->threads[0] = 1;
	o->nthreads = 1;
	o->duration = 1;
	o->warmup = 1;
	o->reps = 5;
	o->batch = 0;
	o->count = COUNT_PERCPU;
}

/* Set by SIGINT/SIGTERM (ours, or the rgbench command's in the default run). */
static volatile sig_atomic_t g_local_stop;
static volatile sig_atomic_t *g_stop = &g_local_stop;

static bool stopped(void)
{
	return *g_stop != 0;
}

/* ---- libbpf messages: kept quiet unless -v, last warning kept for reasons ---- */

static bool g_verbose;
static char g_last_warn[200];
static char g_verifier[160];	/* first line of the last verifier log */

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !g_verbose)
		return 0;
	if (level == LIBBPF_WARN) {
		static char msg[8192];
		const char *log;
		va_list cp;

		va_copy(cp, ap);
		vsnprintf(msg, sizeof(msg), fmt, cp);
		va_end(cp);
		snprintf(g_last_warn, sizeof(g_last_warn), "%.*s", (int)strcspn(msg, "\n"), msg);
		log = strstr(msg, "-- BEGIN PROG LOAD LOG --");
		if (log) {
			log += strlen("-- BEGIN PROG LOAD LOG --");
			log += strspn(log, "\n");
			snprintf(g_verifier, sizeof(g_verifier), "%.*s", (int)strcspn(log, "\n"), log);
		}
	}
	if (!g_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* ---- privileges ---- */

static bool has_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	eff = (uint64_t)data[1].effective << 32 | data[0].effective;
#ifndef CAP_BPF
#define CAP_PERFMON 38
#define CAP_BPF 39
#endif
	if (eff & (1ull << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ull << CAP_BPF)) && (eff & (1ull << CAP_PERFMON));
}

static const char priv_msg[] =
	"rgbench bpf: needs root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN on kernels before 5.8), "
	"to load and attach BPF programs";

/* ---- errno -> reason ---- */

static void explain(char *buf, size_t size, const char *what, enum rg_kind k, int err)
{
	const char *meaning;

	switch (err) {
	case EPERM:
		meaning = k == K_KPROBE ? "refused by kernel policy or missing privilege" :
			  (k == K_FENTRY || k == K_FEXIT || k == K_FMOD_RET) ?
			  "refused by kernel policy (ftrace/trampolines locked down?)" :
			  "refused by kernel policy or missing privilege";
		break;
	case EACCES: meaning = "rejected by the verifier"; break;
	case ENOENT:
		meaning = k == K_KPROBE ? "failed: no kprobe support or target not probeable" :
			  "failed: target or kernel feature not found";
		break;
	case ESRCH: meaning = "attach target not found in kernel BTF"; break;
	case EINVAL: meaning = "invalid for this kernel (program type, target or verifier)"; break;
	case EOPNOTSUPP: case 524 /* ENOTSUPP */:
		meaning = "not supported by this kernel"; break;
	case EBUSY: meaning = "attach point busy"; break;
	case E2BIG: meaning = "too big for this kernel"; break;
	default: meaning = strerror(err); break;
	}
	snprintf(buf, size, "%s: %s %s %s%s%s",
		 err == 524 ? "ENOTSUPP" : strerrorname_np(err) ? strerrorname_np(err) : "E?",
		 kinds[k].name, what, meaning, g_verifier[0] ? "; verifier: " : "", g_verifier);
}

/* ---- kernel feature probes ---- */

static int kfunc_available(void)
{
	static int cached = -1;
	struct btf *btf;

	if (cached >= 0)
		return cached;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return (cached = 0);
	cached = btf__find_by_name_kind(btf, KFUNC_FN, BTF_KIND_FUNC) >= 0;
	btf__free(btf);
	return cached;
}

/* Classic tracepoints need tracefs for their ids; mount it if nobody did. */
static bool tracefs_ready(void)
{
	static int state = -1;

	if (state >= 0)
		return state;
	if (!access("/sys/kernel/tracing/events", F_OK) ||
	    !access("/sys/kernel/debug/tracing/events", F_OK))
		return (state = 1);
	if (!mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		fprintf(stderr, "rgbench bpf: mounted tracefs on /sys/kernel/tracing (tp needs it)\n");
		return (state = 1);
	}
	return (state = 0);
}

/* ---- pinning: the user suite's topology module, so both place threads alike ---- */

struct pinner {
	int ncpus;
	int cpu[RG_TRIG_MAX_CPUS];	/* OS index of the n-th usable CPU */
	const char *how;
};

/*
 * CPUs in the user suite's placement order (rg_topo_order: one PU per core,
 * then SMT siblings, then the next package; only CPUs this process may use,
 * so taskset is respected). The static build for the qemu check has no
 * hwloc and takes the affinity mask in CPU order instead. With --cpus, the
 * listed CPUs in the listed order; a CPU the process may not use is refused:
 * -1 and err says which.
 */
static int pinner_init(struct pinner *p, const int *want, int nwant, char *err, size_t esize)
{
	cpu_set_t set;
	bool have_set;

	memset(p, 0, sizeof(*p));
	have_set = !sched_getaffinity(0, sizeof(set), &set);
#if RG_HAVE_HWLOC
	char terr[256];

	if (!rg_topo_init(terr, sizeof(terr))) {
		p->ncpus = rg_topo_order(p->cpu, RG_TRIG_MAX_CPUS);
		p->how = "hwloc";
	}
	if (p->ncpus <= 0)
		p->ncpus = 0;
#endif
	if (!p->ncpus) {
		p->how = have_set ? "affinity" : "none";
		for (int c = 0; have_set && c < CPU_SETSIZE && p->ncpus < RG_TRIG_MAX_CPUS; c++)
			if (CPU_ISSET(c, &set))
				p->cpu[p->ncpus++] = c;
	}
	if (!nwant)
		return 0;
	for (int i = 0; i < nwant; i++) {
		bool ok = false;

		for (int j = 0; j < p->ncpus && !ok; j++)
			ok = p->cpu[j] == want[i];
		if (!ok) {
			snprintf(err, esize, "--cpus: CPU %d is not available (allowed: %d CPU(s), "
				 "see rgbench --list)", want[i], p->ncpus);
			return -1;
		}
	}
	memcpy(p->cpu, want, (size_t)nwant * sizeof(int));
	p->ncpus = nwant;
	return 0;
}

static int pinner_cpu(const struct pinner *p, int idx)
{
	return p->ncpus ? p->cpu[idx % p->ncpus] : -1;
}

/* Pin the calling thread to the idx-th CPU (hwloc: bound and verified). */
static int pin_self(const struct pinner *p, int idx)
{
	int cpu = pinner_cpu(p, idx);

	if (cpu < 0)
		return -1;
#if RG_HAVE_HWLOC
	if (!strcmp(p->how, "hwloc")) {
		char err[256];

		return rg_topo_pin_self(cpu, err, sizeof(err));
	}
#endif
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ? -1 : 0;
}

/* ---- one loaded object (either skeleton) behind the same handles ---- */

struct trig {
	struct trig_bpf *s0;
	struct trig_kfunc_bpf *s1;
	struct bpf_object *obj;
	struct rg_trig_counter *hits;
	__u64 *hits_shared;
	struct bpf_program *measured, *driver;
	struct bpf_link *link;
};

/*
 * filter_tgid: count only this process's events in syscall mode (the syscall
 * hooks fire for every process) and in --triggers mode (exact counts even
 * while another process triggers the same global helper or tracepoint); timed
 * driver modes filter nothing, like the kernel's bench.
 */
#define TRIG_SET_RODATA(skel, o, k, m, batch)					\
	do {									\
		(skel)->rodata->count_atomic = (o)->count == COUNT_ATOMIC;	\
		(skel)->rodata->recurse = (m) == MODE_RECURSE;			\
		(skel)->rodata->filter_tgid = ((m) == MODE_SYSCALL || (o)->triggers) && \
			!(o)->all_tasks ? (uint32_t)getpid() : 0;		\
		(skel)->rodata->filter_id = (m) == MODE_SYSCALL &&		\
			((k) == K_RAW_TP || (k) == K_TP_BTF) ? __NR_getpgid : -1; \
		(skel)->rodata->batch_iters = (uint32_t)(batch);		\
	} while (0)

static void trig_detach(struct trig *t)
{
	bpf_link__destroy(t->link);
	t->link = NULL;
}

static void trig_close(struct trig *t)
{
	trig_detach(t);
	if (t->s0)
		trig_bpf__destroy(t->s0);
	if (t->s1)
		trig_kfunc_bpf__destroy(t->s1);
	memset(t, 0, sizeof(*t));
}

static uint64_t trig_hits(const struct trig *t)
{
	uint64_t sum = __atomic_load_n(t->hits_shared, __ATOMIC_RELAXED);

	for (int i = 0; i < RG_TRIG_MAX_CPUS; i++)
		sum += __atomic_load_n(&t->hits[i].value, __ATOMIC_RELAXED);
	return sum;
}

static uint64_t prog_misses(struct bpf_program *p)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (!p || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return 0;
	return info.recursion_misses;
}

/* The attach target of (k, m), NULL when the program type has none to set. */
static const char *target_of(enum rg_kind k, enum rg_mode m)
{
	switch (k) {
	case K_FENTRY: case K_FEXIT: case K_KPROBE:
		return m == MODE_SYSCALL ? SYSCALL_FN : HELPER_FN;
	case K_FMOD_RET:
		return m == MODE_SYSCALL ? SYSCALL_FN : KFUNC_FN;
	case K_TP_BTF:
		return m == MODE_SYSCALL ? "sys_enter" : KFUNC_TP;
	default:
		return NULL;
	}
}

/*
 * Attach the measured program of an attach type (baselines have nothing to
 * attach). Detached again between windows, so that the baseline windows run
 * the same loop with nothing attached. 0 or -errno, why filled.
 */
static int trig_attach(struct trig *t, enum rg_kind k, enum rg_mode m, char *why, size_t wsize)
{
	if (is_baseline(k) || t->link)
		return 0;
	switch (k) {
	case K_TP:
		t->link = m == MODE_SYSCALL ?
			bpf_program__attach_tracepoint(t->measured, "syscalls", "sys_enter_getpgid") :
			bpf_program__attach_tracepoint(t->measured, "bpf_test_run", KFUNC_TP);
		break;
	case K_RAW_TP:
		t->link = bpf_program__attach_raw_tracepoint(t->measured,
				m == MODE_SYSCALL ? "sys_enter" : KFUNC_TP);
		break;
	case K_KPROBE:
		t->link = bpf_program__attach_kprobe(t->measured, false, target_of(k, m));
		break;
	default:
		t->link = bpf_program__attach(t->measured);
		break;
	}
	if (!t->link) {
		int err = errno ? errno : EINVAL;

		g_verifier[0] = '\0';
		explain(why, wsize, "attach", k, err);
		return -err;
	}
	return 0;
}

/*
 * Open, configure, load and attach what variant (k, m) needs, with the given
 * driver batch. 0, or -errno with a reason in why (the variant is then a
 * skipped row).
 */
static int trig_open(struct trig *t, const struct opts *o, enum rg_kind k, enum rg_mode m,
		     int batch, char *why, size_t wsize)
{
	const char *drv = NULL, *target = target_of(k, m);
	bool kf = uses_kfunc(k, m);
	int err;

	memset(t, 0, sizeof(*t));
	if (kf && !kfunc_available()) {
		snprintf(why, wsize, "ENOENT: kfunc " KFUNC_FN " (tracepoint " KFUNC_TP
			 ") not in this kernel (6.10+)");
		return -ENOENT;
	}
	if (k == K_TP && !tracefs_ready()) {
		snprintf(why, wsize, "ENOENT: tracefs not mounted and cannot be mounted (tp needs it)");
		return -ENOENT;
	}
	if (kf) {
		t->s1 = trig_kfunc_bpf__open();
		if (!t->s1)
			goto open_fail;
		TRIG_SET_RODATA(t->s1, o, k, m, batch);
		t->obj = t->s1->obj;
	} else {
		t->s0 = trig_bpf__open();
		if (!t->s0)
			goto open_fail;
		TRIG_SET_RODATA(t->s0, o, k, m, batch);
		t->obj = t->s0->obj;
	}

	/* driver-count's windows alternate with the helper driver's (driver-empty). */
	if (m != MODE_SYSCALL)
		drv = kf ? "drv_kfunc" : "drv_helper";
	if (drv) {
		t->driver = bpf_object__find_program_by_name(t->obj, drv);
		bpf_program__set_autoload(t->driver, true);
	}
	if (kinds[k].prog) {
		t->measured = bpf_object__find_program_by_name(t->obj, kinds[k].prog);
		bpf_program__set_autoload(t->measured, true);
	}
	if (target && k != K_KPROBE) {
		err = bpf_program__set_attach_target(t->measured, 0, target);
		if (err) {
			explain(why, wsize, "target", k, -err);
			goto fail;
		}
	}

	g_last_warn[0] = g_verifier[0] = '\0';
	/* The skeleton's load also maps .bss onto the kernel map (the counters). */
	err = t->s0 ? trig_bpf__load(t->s0) : trig_kfunc_bpf__load(t->s1);
	if (err) {
		explain(why, wsize, "load", k, -err);
		goto fail;
	}
	t->hits = t->s0 ? t->s0->bss->hits : t->s1->bss->hits;
	t->hits_shared = t->s0 ? &t->s0->bss->hits_shared : &t->s1->bss->hits_shared;
	err = trig_attach(t, k, m, why, wsize);
	if (err)
		goto fail;
	return 0;

open_fail:
	err = -errno;
	snprintf(why, wsize, "%s: cannot open the BPF object", strerrorname_np(-err) ?: "E?");
fail:
	trig_close(t);
	return err ? err : -EINVAL;
}

/* ---- producers ---- */

struct ucounter {
	uint64_t value;
} __attribute__((aligned(128)));

/*
 * The producer loops. Every timed loop counts in userspace too, so that a
 * variant's windows and its baseline's windows run the very same loop and
 * differ only in what is attached (driver-count: in the program run).
 */
enum loop { LOOP_SYSCALL, LOOP_USER_COUNT, LOOP_DRIVER };

/*
 * Over-aligned (the shared counter is aligned(128)): allocated with
 * aligned_alloc(), never calloc()/malloc(), which only promise
 * alignof(max_align_t).
 */
struct run {
	enum loop loop;
	bool atomic_count;
	int prog_fd;
	int batch;
	int np;
	uint64_t limit;			/* triggers per producer; UINT64_MAX: until stop */
	const struct pinner *pin;
	atomic_int ready;		/* producers pinned and waiting for go */
	atomic_int go;
	atomic_int stop;
	atomic_int done;		/* producers out of their loop */
	atomic_int errors;		/* failed bpf_prog_test_run_opts() calls */
	atomic_int first_errno;
	atomic_int unpinned;		/* producers whose pinning failed */
	struct ucounter *ucnt;		/* one per producer */
	struct ucounter shared;		/* --count atomic */
};

struct producer {
	struct run *run;
	int idx;
	bool started;
	bool have_clk;
	pthread_t tid;
	clockid_t clk;			/* the producer's CPU-time clock */
};

static inline void ucount(struct run *r, struct ucounter *c, uint64_t n)
{
	if (r->atomic_count)
		__atomic_fetch_add(&r->shared.value, n, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&c->value, __atomic_load_n(&c->value, __ATOMIC_RELAXED) + n,
				 __ATOMIC_RELAXED);
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	struct run *r = p->run;
	struct ucounter *c = &r->ucnt[p->idx];
	uint64_t n, limit = r->limit;

	if (pin_self(r->pin, p->idx))
		atomic_fetch_add(&r->unpinned, 1);
	atomic_fetch_add(&r->ready, 1);
	while (!atomic_load(&r->go) && !atomic_load(&r->stop))
		sched_yield();

	/* One loop per trigger kind: nothing indirect inside the measured loop. */
	switch (r->loop) {
	case LOOP_SYSCALL:
		for (n = 0; n < limit && !atomic_load_explicit(&r->stop, memory_order_relaxed); n++) {
			(void)syscall(__NR_getpgid);
			ucount(r, c, 1);
		}
		break;
	case LOOP_USER_COUNT:
		for (n = 0; n < limit && !atomic_load_explicit(&r->stop, memory_order_relaxed); n++)
			ucount(r, c, 1);
		break;
	case LOOP_DRIVER: {
		LIBBPF_OPTS(bpf_test_run_opts, topts);
		uint64_t runs = limit == UINT64_MAX ? UINT64_MAX : limit / (uint64_t)r->batch;

		for (n = 0; n < runs && !atomic_load_explicit(&r->stop, memory_order_relaxed); n++) {
			if (bpf_prog_test_run_opts(r->prog_fd, &topts)) {
				int zero = 0;

				atomic_compare_exchange_strong(&r->first_errno, &zero, errno ? errno : EIO);
				atomic_fetch_add(&r->errors, 1);
				break;
			}
			ucount(r, c, (uint64_t)r->batch);
		}
		break;
	}
	}
	atomic_fetch_add(&r->done, 1);
	return NULL;
}

static uint64_t user_hits(struct run *r)
{
	uint64_t sum = __atomic_load_n(&r->shared.value, __ATOMIC_RELAXED);

	for (int i = 0; i < r->np; i++)
		sum += __atomic_load_n(&r->ucnt[i].value, __ATOMIC_RELAXED);
	return sum;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Sleep until t (CLOCK_MONOTONIC). Producers block SIGINT/SIGTERM, so a
 * signal interrupts this sleep in the main thread. false: stop requested.
 */
static bool sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (double)(time_t)t) * 1e9) };

	if (stopped())
		return false;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (stopped())
			return false;
	return !stopped();
}

/* Start r->np producers on r->loop; they wait pinned until all are up, then go. */
static int producers_start(struct run *r, struct producer *prod)
{
	sigset_t block, old;
	int created = 0;

	atomic_store(&r->ready, 0);
	atomic_store(&r->go, 0);
	atomic_store(&r->stop, 0);
	atomic_store(&r->done, 0);
	atomic_store(&r->errors, 0);
	atomic_store(&r->first_errno, 0);
	memset(r->ucnt, 0, sizeof(struct ucounter) * (size_t)r->np);
	r->shared.value = 0;
	/* Signals go to the main thread, which checks the stop flag between samples. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (int i = 0; i < r->np; i++) {
		prod[i].run = r;
		prod[i].idx = i;
		prod[i].started = !pthread_create(&prod[i].tid, NULL, producer_main, &prod[i]);
		if (!prod[i].started)
			break;
		prod[i].have_clk = !pthread_getcpuclockid(prod[i].tid, &prod[i].clk);
		created++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (created < r->np)
		atomic_store(&r->stop, 1);
	while (atomic_load(&r->ready) < created)
		sched_yield();
	if (created < r->np) {
		for (int i = 0; i < created; i++)
			pthread_join(prod[i].tid, NULL);
		return -EAGAIN;
	}
	atomic_store(&r->go, 1);
	return 0;
}

static void producers_stop(struct run *r, struct producer *prod)
{
	atomic_store(&r->stop, 1);
	for (int i = 0; i < r->np; i++)
		if (prod[i].started)
			pthread_join(prod[i].tid, NULL);
}

/* ---- windows: one sample each ---- */

/* Skip the first 10 ms of a window: threads starting and pinning. */
#define SETTLE_S 0.01

struct snap {
	double t, cpu;
	uint64_t events, misses;
};

/* Counters at one instant; the same order at both ends of a window. */
static void snap_take(struct snap *s, struct run *r, const struct producer *prod,
		      const struct trig *t, bool bpf_counted)
{
	struct timespec ts;

	s->cpu = 0;
	for (int i = 0; i < r->np; i++)
		if (prod[i].have_clk && !clock_gettime(prod[i].clk, &ts))
			s->cpu += (double)ts.tv_sec + ts.tv_nsec * 1e-9;
		else
			s->cpu = NAN;
	s->events = bpf_counted ? trig_hits(t) : user_hits(r);
	s->t = now_s();
	s->misses = prog_misses(t ? t->measured : NULL);
}

struct window {
	double wall, cpu;		/* seconds: wall clock, producers' CPU time (sum) */
	uint64_t events, misses;
};

/*
 * One sample: start the producers, skip SETTLE_S, count for `seconds`, stop.
 * 0; -EINTR on a stop request; -EIO when bpf_prog_test_run_opts() failed
 * (r->first_errno says why); -EAGAIN when producers could not be started.
 */
static int run_window(struct run *r, struct producer *prod, const struct trig *t,
		      bool bpf_counted, double seconds, struct window *w)
{
	struct snap a, b;
	bool ok;
	int err = producers_start(r, prod);

	if (err)
		return err;
	ok = sleep_until(now_s() + SETTLE_S);
	if (ok) {
		snap_take(&a, r, prod, t, bpf_counted);
		ok = sleep_until(a.t + seconds);
		snap_take(&b, r, prod, t, bpf_counted);
		/* A producer starved of CPU (a loaded machine) may not finish one batch. */
		for (int i = 0; ok && b.events == a.events && i < 10 && !atomic_load(&r->errors); i++) {
			ok = sleep_until(b.t + seconds);
			snap_take(&b, r, prod, t, bpf_counted);
		}
	}
	producers_stop(r, prod);
	if (!ok)
		return -EINTR;
	if (atomic_load(&r->errors))
		return -EIO;
	w->wall = b.t - a.t;
	w->cpu = b.cpu - a.cpu;
	w->events = b.events - a.events;
	w->misses = b.misses - a.misses;
	return 0;
}

/* Per-window values of one side (the row's, or its baseline's). */
struct series {
	double *mops;		/* M events/s, all producers */
	double *ns;		/* wall ns per event per producer: 1e3 / (M/s per producer) */
	double *cpu_ns;		/* producers' CPU ns per event */
	size_t n;
	uint64_t events, misses;
};

static int series_alloc(struct series *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->mops = calloc(n ? n : 1, sizeof(double));
	s->ns = calloc(n ? n : 1, sizeof(double));
	s->cpu_ns = calloc(n ? n : 1, sizeof(double));
	return s->mops && s->ns && s->cpu_ns ? 0 : -ENOMEM;
}

static void series_free(struct series *s)
{
	free(s->mops);
	free(s->ns);
	free(s->cpu_ns);
	memset(s, 0, sizeof(*s));
}

static void series_add(struct series *s, const struct window *w, int np)
{
	s->mops[s->n] = (double)w->events / w->wall / 1e6;
	s->ns[s->n] = 1e9 * w->wall * np / (double)w->events;
	s->cpu_ns[s->n] = 1e9 * w->cpu / (double)w->events;
	s->n++;
	s->events += w->events;
	s->misses += w->misses;
}

/* ---- one row ---- */

struct ctx {
	const struct opts *o;
	struct rg_resultset *rs;
	struct pinner pin;
	int batch;			/* driver batch in use */
	FILE *out;			/* result lines and progress; NULL: quiet */
	int row, nrows;
};

static void cpus_string(const struct pinner *pin, int np, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < np && off < size; i++) {
		int cpu = pinner_cpu(pin, i);
		int w = snprintf(buf + off, size - off, "%s%d", i ? "," : "", cpu);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static void say(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->out)
		return;
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fflush(c->out);
}

static void row_identity(struct ctx *c, struct rg_result *row, enum rg_kind k, enum rg_mode m,
			 int np)
{
	row->threads = np;
	row->batch = m == MODE_SYSCALL ? 1 : c->batch;
	snprintf(row->role, sizeof(row->role), "%s", role_of(k));
}

/* Fill a measured row from its windows (and its baseline's, when paired). */
static int row_fill(struct ctx *c, struct rg_result *row, enum rg_kind k, const struct series *a,
		    const struct series *b, int bk)
{
	bool cpu_ok = true;

	if (rg_result_set_samples(row, a->ns, a->mops, a->n))
		return -ENOMEM;
	/* Exactly 1e3 / (M/s per producer), also for an even number of samples. */
	row->ns_median = 1e3 / row->mops_per_thread;
	row->wall_ns_median = row->ns_median;
	for (size_t i = 0; i < a->n; i++)
		cpu_ok &= isfinite(a->cpu_ns[i]);
	if (cpu_ok && a->n)
		row->cpu_ns_median = rg_stat_median(a->cpu_ns, a->n);
	row->refusals = a->misses;
	row->ops = a->events;
	if (b) {
		snprintf(row->interleave, sizeof(row->interleave), "alternating");
		if (rg_result_set_delta(row, kinds[bk].name, a->ns, b->ns, a->n))
			return -ENOMEM;
	}
	(void)c;
	(void)k;
	return 0;
}

static void row_print(struct ctx *c, const struct rg_result *row, enum rg_kind k, enum rg_mode m,
		      int np)
{
	char sdb[16] = "n/a", db[96] = "", cib[48] = "";

	if (!isnan(row->mops_stddev))
		snprintf(sdb, sizeof(sdb), "%.3f", row->mops_stddev);
	if (!isnan(row->delta_ns)) {
		if (!isnan(row->delta_ci_lo))
			snprintf(cib, sizeof(cib), " [%+.2f, %+.2f]", row->delta_ci_lo, row->delta_ci_hi);
		snprintf(db, sizeof(db), "; %+.2f%s ns over %s", row->delta_ns, cib, row->baseline);
	}
	/* cpu/wall: the share of the windows the producers were on a CPU. */
	double oncpu = row->cpu_ns_median / row->ns_median;
	char busy[80] = "";

	if (oncpu < 0.8)
		snprintf(busy, sizeof(busy), " (producers on a CPU %.0f%% of the time: busy machine)",
			 100 * oncpu);
	say(c, "[%d/%d] %-13s %-8s p=%d hits %8.3f ± %6s M/s (%7.3f M/prod)  %.2f ns/event%s; "
	    "misses %llu%s\n", c->row, c->nrows, kinds[k].name, mode_names[m], np, row->mops_mean,
	    sdb, row->mops_mean / np, row->ns_median, db, (unsigned long long)row->refusals, busy);
}

/* --triggers: each producer triggers exactly o->triggers events; no timing windows. */
static int run_fixed(struct ctx *c, struct run *r, struct producer *prod, const struct trig *t,
		     bool bpf_counted, struct rg_result *row)
{
	uint64_t m0 = prog_misses(t->measured);
	double t0, t1, mops;
	int err = producers_start(r, prod);

	if (err)
		return err;
	t0 = now_s();
	while (atomic_load(&r->done) < r->np && sleep_until(now_s() + 0.01))
		;
	producers_stop(r, prod);
	t1 = now_s();
	if (stopped())
		return -EINTR;
	row->ops = bpf_counted ? trig_hits(t) : user_hits(r);
	row->refusals = prog_misses(t->measured) - m0;
	mops = (double)row->ops / (t1 - t0) / 1e6;
	if (row->ops && rg_result_set_samples(row, NULL, &mops, 1))
		return -ENOMEM;
	if (row->ops)
		row->ns_median = row->wall_ns_median = 1e3 / row->mops_per_thread;
	(void)c;
	return atomic_load(&r->errors) ? -EIO : 0;
}

/*
 * Measure one row: variant k in mode m with np producers. A row paired with a
 * baseline (pair_of) alternates windows A B A B ...: A with the measured
 * program attached (or run), B with the baseline's state, the same producer
 * loop in both. Skipped and failed variants become rows saying why.
 * 0, -EINTR (stop requested: nothing added), or -ENOMEM.
 */
static int run_row(struct ctx *c, enum rg_kind k, enum rg_mode m, int np)
{
	const struct opts *o = c->o;
	const char *mode = mode_names[m];
	int bk = o->triggers ? -1 : pair_of(k, m);
	bool paired = bk >= 0, bpf_a = kinds[k].prog != NULL;
	struct series sa = { 0 }, sb = { 0 };
	struct producer *prod = NULL;
	struct rg_result *row;
	struct run *r = NULL;
	struct window w;
	struct trig t;
	char why[256] = "";
	int fd_a = -1, fd_b = -1, err = 0;

	c->row++;
	memset(&t, 0, sizeof(t));
	if (k != K_USER_COUNT) {
		err = trig_open(&t, o, k, m, m == MODE_SYSCALL ? 1 : c->batch, why, sizeof(why));
		if (err) {
			row = rg_results_skip(c->rs, SUITE, kinds[k].name, mode, "%s", why);
			if (!row)
				return -ENOMEM;
			row_identity(c, row, k, m, np);
			say(c, "[%d/%d] %-13s %-8s skipped: %s\n", c->row, c->nrows, kinds[k].name,
			    mode, why);
			if (o->verbose && g_last_warn[0])
				say(c, "%-13s %-8s libbpf: %s\n", "", "", g_last_warn);
			return 0;
		}
	}
	if (m != MODE_SYSCALL) {
		fd_b = bpf_program__fd(t.driver);
		fd_a = k == K_DRV_COUNT ? bpf_program__fd(t.measured) : fd_b;
	}

	r = aligned_alloc(_Alignof(struct run), sizeof(*r));
	prod = calloc((size_t)np, sizeof(*prod));
	if (r) {
		memset(r, 0, sizeof(*r));
		r->ucnt = aligned_alloc(_Alignof(struct ucounter), sizeof(struct ucounter) * (size_t)np);
	}
	if (!r || !prod || !r->ucnt || series_alloc(&sa, (size_t)o->reps) ||
	    series_alloc(&sb, (size_t)o->reps)) {
		err = -ENOMEM;
		goto out;
	}
	r->np = np;
	r->pin = &c->pin;
	r->atomic_count = o->count == COUNT_ATOMIC;
	r->batch = c->batch;
	r->limit = o->triggers ? o->triggers : UINT64_MAX;
	r->loop = m != MODE_SYSCALL ? LOOP_DRIVER : k == K_USER_COUNT ? LOOP_USER_COUNT : LOOP_SYSCALL;
	r->prog_fd = fd_a;

	row = rg_results_add(c->rs, SUITE, kinds[k].name, mode);
	if (!row) {
		err = -ENOMEM;
		goto out;
	}
	row_identity(c, row, k, m, np);

	if (o->triggers) {
		err = run_fixed(c, r, prod, &t, bpf_a, row);
	} else {
		/* Warm-up: both states when paired, discarded. */
		if (o->warmup > 0) {
			err = run_window(r, prod, &t, bpf_a, paired ? o->warmup / 2 : o->warmup, &w);
			if (!err && paired) {
				trig_detach(&t);
				r->prog_fd = fd_b;
				err = run_window(r, prod, &t, false, o->warmup / 2, &w);
			}
		}
		for (int i = 0; i < o->reps && !err; i++) {
			err = trig_attach(&t, k, m, why, sizeof(why));
			if (err)
				break;
			r->prog_fd = fd_a;
			err = run_window(r, prod, &t, bpf_a, o->duration, &w);
			if (err)
				break;
			if (!w.events) {
				snprintf(why, sizeof(why), "no events counted in a %.2f s window "
					 "(the program never ran, or the producers never got a CPU)",
					 w.wall);
				err = -ENODATA;
				break;
			}
			series_add(&sa, &w, np);
			if (!paired)
				continue;
			trig_detach(&t);
			r->prog_fd = fd_b;
			err = run_window(r, prod, &t, false, o->duration, &w);
			if (!err && !w.events) {
				snprintf(why, sizeof(why), "no baseline events counted in a %.2f s window",
					 w.wall);
				err = -ENODATA;
			}
			if (!err)
				series_add(&sb, &w, np);
		}
		if (!err)
			err = row_fill(c, row, k, &sa, paired ? &sb : NULL, bk);
	}
	if (err == -EINTR) {
		c->rs->n--;	/* an interrupted row is not a result */
		rg_result_set_samples(row, NULL, NULL, 0);
		goto out;
	}
	if (atomic_load(&r->unpinned)) {
		snprintf(row->pinning, sizeof(row->pinning), "none");
	} else {
		snprintf(row->pinning, sizeof(row->pinning), "%s", c->pin.how);
		cpus_string(&c->pin, np, row->cpus, sizeof(row->cpus));
	}
	if (err && err != -ENOMEM) {
		snprintf(row->status, sizeof(row->status), "error");
		if (err == -EIO)
			snprintf(row->reason, sizeof(row->reason),
				 "bpf_prog_test_run_opts failed in %d producer(s): %s",
				 atomic_load(&r->errors), strerror(atomic_load(&r->first_errno)));
		else if (err == -EAGAIN)
			snprintf(row->reason, sizeof(row->reason), "cannot start %d producer threads", np);
		else
			snprintf(row->reason, sizeof(row->reason), "%s", why[0] ? why : strerror(-err));
		say(c, "[%d/%d] %-13s %-8s error: %s\n", c->row, c->nrows, kinds[k].name, mode,
		    row->reason);
		err = 0;
	} else if (!err && o->triggers) {
		say(c, "[%d/%d] %-13s %-8s p=%d triggers=%llu hits=%llu misses=%llu\n", c->row,
		    c->nrows, kinds[k].name, mode, np,
		    (unsigned long long)o->triggers * (unsigned long long)np,
		    (unsigned long long)row->ops, (unsigned long long)row->refusals);
	} else if (!err) {
		row_print(c, row, k, m, np);
	}
out:
	series_free(&sa);
	series_free(&sb);
	if (r)
		free(r->ucnt);
	free(r);
	free(prod);
	trig_close(&t);		/* programs and links go away on every path */
	return err;
}

/* ---- driver batch sized by measurement ---- */

/* Points of the two-point fit: test runs of 1 and of CAL_BATCH events. */
#define CAL_BATCH 1000
#define CAL_ROUNDS 3
/* The syscall's share of an event must fall under 5%: batch >= 19 S / e. */
#define SHARE_MAX 0.05

/* Smallest 1-2-5 value >= v (1000, 2000, 5000, 10000, ...). */
static long round_125(double v)
{
	for (long dec = 1; dec <= 1000000000L; dec *= 10)
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3)
			if ((double)(m * dec) >= v)
				return m * dec;
	return LONG_MAX;
}

/*
 * Time one bpf_prog_test_run_opts() of the helper driver (nothing attached)
 * at batch 1 and at CAL_BATCH, CAL_ROUNDS alternating windows each; per-run
 * time t(b) = S + b * e gives the fixed cost S of the syscall (entry, fd
 * lookup, test-run setup, the program call) and e, the cost of one event of
 * driver-empty, the cheapest driver path (largest share). The batch is the
 * largest of 1000 and the smallest 1-2-5 value with S / (S + batch * e) < 5%,
 * at most RG_TRIG_MAX_BATCH. Measured once per run, on the first CPU.
 */
static int size_batch(struct ctx *c, double win)
{
	struct trig t1, t2;
	struct producer prod[1];
	struct run *r;
	struct window w;
	double per[2][CAL_ROUNDS], tr1, tr2, e, s, want;
	char why[256];
	int err;

	c->batch = CAL_BATCH;
	if (trig_open(&t1, c->o, K_DRV_EMPTY, MODE_DRIVER, 1, why, sizeof(why))) {
		say(c, "rgbench bpf: batch %d (cannot measure: %s)\n", c->batch, why);
		return 0;
	}
	if (trig_open(&t2, c->o, K_DRV_EMPTY, MODE_DRIVER, CAL_BATCH, why, sizeof(why))) {
		trig_close(&t1);
		say(c, "rgbench bpf: batch %d (cannot measure: %s)\n", c->batch, why);
		return 0;
	}
	r = aligned_alloc(_Alignof(struct run), sizeof(*r));
	if (r) {
		memset(r, 0, sizeof(*r));
		r->ucnt = aligned_alloc(_Alignof(struct ucounter), sizeof(struct ucounter));
	}
	err = r && r->ucnt ? 0 : -ENOMEM;
	if (!err) {
		r->np = 1;
		r->pin = &c->pin;
		r->loop = LOOP_DRIVER;
		r->limit = UINT64_MAX;
		memset(prod, 0, sizeof(prod));
	}
	for (int i = 0; i < CAL_ROUNDS && !err; i++)
		for (int j = 0; j < 2 && !err; j++) {
			r->batch = j ? CAL_BATCH : 1;
			r->prog_fd = bpf_program__fd((j ? &t2 : &t1)->driver);
			err = run_window(r, prod, NULL, false, win, &w);
			if (!err && !w.events)
				err = -ENODATA;
			if (!err)	/* ns per test run */
				per[j][i] = 1e9 * w.wall * r->batch / (double)w.events;
		}
	if (r)
		free(r->ucnt);
	free(r);
	trig_close(&t1);
	trig_close(&t2);
	if (err == -EINTR || err == -ENOMEM)
		return err;
	if (err) {
		say(c, "rgbench bpf: batch %d (the timing runs failed: %s)\n", c->batch,
		    strerror(-err));
		return 0;
	}
	tr1 = rg_stat_median(per[0], CAL_ROUNDS);
	tr2 = rg_stat_median(per[1], CAL_ROUNDS);
	e = (tr2 - tr1) / (CAL_BATCH - 1);
	s = tr1 - e;
	if (!(e > 0) || !(s > 0)) {
		say(c, "rgbench bpf: batch %d (inconclusive: %.1f ns per run at batch 1, %.1f at %d)\n",
		    c->batch, tr1, tr2, CAL_BATCH);
		return 0;
	}
	want = (1 - SHARE_MAX) / SHARE_MAX * s / e;
	c->batch = (int)fmin(fmax((double)round_125(want), CAL_BATCH), RG_TRIG_MAX_BATCH);
	say(c, "rgbench bpf: batch %d: a test run costs %.0f ns + %.2f ns per event (driver-empty); "
	    "the syscall's share falls under 5%% from batch %.0f; share at %d: %.1f%%%s\n", c->batch,
	    s, e, ceil(want), c->batch, 100 * s / (s + c->batch * e),
	    want > RG_TRIG_MAX_BATCH ? " (capped at the largest batch the programs allow)" : "");
	return 0;
}

/* ---- every row ---- */

static bool row_exists(enum rg_kind k, enum rg_mode m)
{
	return kinds[k].modes & M(m);
}

/* Seconds one row takes at most (a skipped one takes none). */
static double row_seconds(const struct opts *o, enum rg_kind k, enum rg_mode m)
{
	int sides = o->triggers ? 0 : pair_of(k, m) >= 0 ? 2 : 1;

	return o->warmup + sides * o->reps * (o->duration + SETTLE_S + 0.005) + 0.05;
}

/* Run every wanted row: per producer count, per mode, each kind in table order. */
static int run_all(struct ctx *c)
{
	const struct opts *o = c->o;
	bool driver = false;
	double est = 0;
	int err = 0;

	libbpf_set_print(libbpf_print);
	g_verbose = o->verbose;
	c->row = c->nrows = 0;
	for (int m = 0; m < NR_MODES; m++)
		for (int k = 0; k < NR_KINDS; k++)
			if ((o->modes & M(m)) && o->want[k] &&
			    (row_exists((enum rg_kind)k, (enum rg_mode)m) || o->explicit_kinds)) {
				c->nrows += o->nthreads;
				driver |= m != MODE_SYSCALL && row_exists((enum rg_kind)k, (enum rg_mode)m);
				if (row_exists((enum rg_kind)k, (enum rg_mode)m))
					est += o->nthreads * row_seconds(o, (enum rg_kind)k, (enum rg_mode)m);
			}
	c->batch = o->batch ? o->batch : CAL_BATCH;
	if (driver && !o->batch && !o->triggers)
		est += 2 * CAL_ROUNDS * (fmin(o->duration, 0.2) + SETTLE_S) + 0.1;
	if (!o->triggers)
		say(c, "rgbench bpf: %d rows, %d sample(s) of %g s after %g s warm-up each "
		    "(paired rows alternate with their baseline): at most ~%.0f s\n",
		    c->nrows, o->reps, o->duration, o->warmup, est);
	if (driver && !o->batch && !o->triggers)
		err = size_batch(c, fmin(o->duration, 0.2));
	for (int ti = 0; ti < o->nthreads && !err && !stopped(); ti++)
		for (int m = 0; m < NR_MODES && !err && !stopped(); m++) {
			if (!(o->modes & M(m)))
				continue;
			for (int k = 0; k < NR_KINDS && !err && !stopped(); k++) {
				if (!o->want[k])
					continue;
				if (row_exists((enum rg_kind)k, (enum rg_mode)m)) {
					err = run_row(c, (enum rg_kind)k, (enum rg_mode)m, o->threads[ti]);
					continue;
				}
				if (!o->explicit_kinds)
					continue;
				/* Asked for explicitly but meaningless here: say so. */
				c->row++;
				if (!rg_results_skip(c->rs, SUITE, kinds[k].name, mode_names[m],
						     "%s has no %s path in rgbench bpf (see --list)",
						     kinds[k].name, mode_names[m]))
					err = -ENOMEM;
				else
					say(c, "[%d/%d] %-13s %-8s skipped: no %s path\n", c->row,
					    c->nrows, kinds[k].name, mode_names[m], mode_names[m]);
			}
		}
	if (stopped())
		return -EINTR;
	return err;
}

/* ---- CLI ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rgbench bpf [--list] [--mode syscall,driver,recurse|all] [--recurse]\n"
		"                   [--attach fentry,raw_tp,...|all] [--threads N,...] [--cpus LIST]\n"
		"                   [--allow-shared-cpus] [--duration S] [--repetitions N] [--warmup S]\n"
		"                   [--batch N] [--count percpu|atomic] [--triggers N]\n"
		"                   [--all-tasks] [--out F.csv] [--json F.json] [-v]\n"
		"  --mode         trigger modes to run (default syscall,driver); recurse: the program\n"
		"                 re-triggers its own hook once per hit (driver-triggered)\n"
		"  --recurse      same as --mode recurse\n"
		"  --attach       attach types and baselines to run (default all; see --list)\n"
		"  --threads N,.. producers, one set of rows per count (default 1); each pinned to\n"
		"                 its own CPU in topology order (-p, --producers: the same)\n"
		"  --cpus LIST    CPUs for the producers, in this order, e.g. 0,2 or 0-3\n"
		"  --allow-shared-cpus  allow more producers than CPUs (they then share CPUs)\n"
		"  --duration S   seconds per sample (default 1)\n"
		"  --repetitions N  samples per row (default 5); a row and its baseline alternate\n"
		"                 windows A B A B ..., N of each\n"
		"  --warmup S     seconds before the first sample (default 1)\n"
		"  --batch N      driver loop trips per bpf_prog_test_run (1..%d; default: the\n"
		"                 largest of 1000 and the batch where the syscall's share of an\n"
		"                 event falls under 5%%, measured at start)\n"
		"  --count        hit counters: percpu (padded per-CPU slots, default) or atomic\n"
		"                 (one shared atomic, like the kernel's bench)\n"
		"  --triggers N   fixed-count mode: each producer triggers exactly N events (a multiple\n"
		"                 of --batch, default batch 1000, in driver modes); hits and misses\n"
		"  --all-tasks    syscall mode: count hooks fired by any process (like the kernel's\n"
		"                 bench; default: only this process's producers, one helper call more)\n"
		"  --out/--json   write the rows (suite=bpf) in the shared schema, atomically\n"
		"Exit status: 0 done (refused types are 'skipped' rows), 1 I/O error, 2 bad option,\n"
		"77 not enough privilege, 128+signal interrupted (nothing written).\n",
		RG_TRIG_MAX_BATCH);
}

static void list(void)
{
	printf("%-13s %-22s %s\n", "name", "modes", "what");
	for (int k = 0; k < NR_KINDS; k++) {
		char ms[32] = "";

		for (int m = 0; m < NR_MODES; m++)
			if (kinds[k].modes & M(m))
				snprintf(ms + strlen(ms), sizeof(ms) - strlen(ms), "%s%s",
					 ms[0] ? "," : "", mode_names[m]);
		printf("%-13s %-22s %s%s\n", kinds[k].name, ms, is_baseline((enum rg_kind)k) ?
		       "baseline: " : "", kinds[k].help);
	}
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;

	fputs("rgbench bpf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int parse_num(const char *s, double lo, double hi, double *out, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return bad("%s must be a number in [%g, %g], not '%s'", what, lo, hi, s);
	*out = v;
	return 0;
}

/* A comma list must have no empty element ("", "a,", ",a", "a,,b"). */
static int check_list(const char *flag, const char *s)
{
	if (!*s || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return bad("%s '%s': empty list or list element", flag, s);
	return 0;
}

/* Integers in [lo, hi], comma separated; a-b ranges when ranges. */
static int parse_ints(const char *flag, const char *s, int *out, int max, long lo, long hi,
		      bool ranges)
{
	char *dup, *save = NULL, *tok;
	int n = 0, rc = 0;

	if (check_list(flag, s))
		return -1;
	dup = strdup(s);
	if (!dup)
		return bad("out of memory");
	for (tok = strtok_r(dup, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *dash = ranges ? strchr(tok + 1, '-') : NULL, *end;
		long a, b;

		if (dash)
			*dash = '\0';
		errno = 0;
		a = strtol(tok, &end, 10);
		if (errno || end == tok || *end || a < lo || a > hi) {
			rc = bad("%s '%s': '%s' is not an integer in [%ld, %ld]", flag, s, tok, lo, hi);
			break;
		}
		b = a;
		if (dash) {
			b = strtol(dash + 1, &end, 10);
			if (errno || end == dash + 1 || *end || b < a || b > hi) {
				rc = bad("%s '%s': bad range", flag, s);
				break;
			}
		}
		for (long v = a; v <= b && !rc; v++) {
			for (int i = 0; i < n; i++)
				if (out[i] == v)
					rc = bad("%s '%s': %ld is listed twice", flag, s, v);
			if (!rc && n >= max)
				rc = bad("%s '%s': more than %d entries", flag, s, max);
			if (!rc)
				out[n++] = (int)v;
		}
	}
	free(dup);
	return rc ? -1 : n;
}

static int parse_list(const char *flag, const char *arg, struct opts *o, bool modes)
{
	char *dup, *save = NULL, *tok;
	int rc = 0;

	if (check_list(flag, arg))
		return -1;
	dup = strdup(arg);
	if (!dup)
		return bad("out of memory");
	if (modes)
		o->modes = 0;
	else
		memset(o->want, 0, sizeof(o->want));
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool found = false;

		if (!strcmp(tok, "all")) {
			if (modes)
				o->modes = M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE);
			else
				for (int k = 0; k < NR_KINDS; k++)
					o->want[k] = true;
			continue;
		}
		if (modes) {
			for (int m = 0; m < NR_MODES; m++)
				if (!strcmp(tok, mode_names[m])) {
					o->modes |= M(m);
					found = true;
				}
		} else {
			for (int k = 0; k < NR_KINDS; k++)
				if (!strcmp(tok, kinds[k].name)) {
					o->want[k] = true;
					found = true;
				}
		}
		if (!found) {
			rc = bad("unknown %s '%s' (see rgbench bpf --list)",
				 modes ? "mode" : "attach type", tok);
			break;
		}
	}
	free(dup);
	return rc;
}

static int parse_args(int argc, char **argv, struct opts *o, bool *do_list)
{
	enum { O_CPUS = 256, O_SHARED, O_REPS };
	static const struct option lo[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "mode", required_argument, NULL, 'm' },
		{ "recurse", no_argument, NULL, 'r' },
		{ "attach", required_argument, NULL, 'a' },
		{ "threads", required_argument, NULL, 'p' },
		{ "producers", required_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "allow-shared-cpus", no_argument, NULL, O_SHARED },
		{ "duration", required_argument, NULL, 'd' },
		{ "repetitions", required_argument, NULL, O_REPS },
		{ "warmup", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'c' },
		{ "triggers", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "all-tasks", no_argument, NULL, 'A' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	double v = 0;
	int c, n;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:w:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'l': *do_list = true; break;
		case 'm': if (parse_list("--mode", optarg, o, true)) return -1; break;
		case 'r': o->modes = M(MODE_RECURSE); break;
		case 'a':
			if (parse_list("--attach", optarg, o, false))
				return -1;
			o->explicit_kinds = true;
			break;
		case 'p':
			n = parse_ints("--threads", optarg, o->threads, MAX_TCOUNTS, 1,
				       RG_TRIG_MAX_CPUS, false);
			if (n < 0)
				return -1;
			o->nthreads = n;
			break;
		case O_CPUS:
			n = parse_ints("--cpus", optarg, o->cpus, RG_TRIG_MAX_CPUS, 0,
				       RG_TRIG_MAX_CPUS - 1, true);
			if (n < 0)
				return -1;
			o->ncpus = n;
			break;
		case O_SHARED: o->allow_shared = true; break;
		case 'd': if (parse_num(optarg, 0.01, 3600, &o->duration, "--duration")) return -1; break;
		case O_REPS:
			if (parse_num(optarg, 1, 1000, &v, "--repetitions"))
				return -1;
			if (v != (int)v)
				return bad("--repetitions must be an integer, not '%s'", optarg);
			o->reps = (int)v;
			break;
		case 'w': if (parse_num(optarg, 0, 3600, &o->warmup, "--warmup")) return -1; break;
		case 'b':
			if (parse_num(optarg, 1, RG_TRIG_MAX_BATCH, &v, "--batch"))
				return -1;
			if (v != (int)v)
				return bad("--batch must be an integer, not '%s'", optarg);
			o->batch = (int)v;
			break;
		case 'c':
			if (!strcmp(optarg, "percpu"))
				o->count = COUNT_PERCPU;
			else if (!strcmp(optarg, "atomic"))
				o->count = COUNT_ATOMIC;
			else
				return bad("--count must be percpu or atomic, not '%s'", optarg);
			break;
		case 't':
			if (parse_num(optarg, 1, 1e12, &v, "--triggers"))
				return -1;
			if (v != (double)(uint64_t)v)
				return bad("--triggers must be an integer, not '%s'", optarg);
			o->triggers = (uint64_t)v;
			break;
		case 'o': o->csv = optarg; break;
		case 'j': o->json = optarg; break;
		case 'A': o->all_tasks = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(0);
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s' (see rgbench bpf --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (o->triggers && !o->batch)
		o->batch = CAL_BATCH;	/* nothing is timed: no measurement to size it by */
	if (o->triggers && (o->modes & (M(MODE_DRIVER) | M(MODE_RECURSE))) &&
	    o->triggers % (uint64_t)o->batch)
		return bad("--triggers must be a multiple of --batch (%d) in driver modes", o->batch);
	return 0;	/* the output paths: rg_output_check() in rg_bpf_main() */
}

/* Producers vs CPUs: one per CPU unless --allow-shared-cpus. */
static int check_threads(const struct opts *o, const struct pinner *pin)
{
	for (int i = 0; i < o->nthreads; i++)
		if (o->threads[i] > pin->ncpus && !o->allow_shared)
			return bad("--threads %d: only %d CPU(s) to pin producers to, one each "
				   "(--allow-shared-cpus to share them)", o->threads[i], pin->ncpus);
	return 0;
}

static void on_signal(int sig)
{
	g_local_stop = sig;
}

int rg_bpf_main(int argc, char **argv)
{
	struct rg_resultset rs;
	struct rg_env env;
	struct sigaction sa;
	struct ctx c;
	struct opts o;
	char err_s[256];
	bool do_list = false;
	int err, rc = 0;
	char msg[4352];

	/*
	 * The user suite's discipline, from the start: a signal stops the run
	 * between samples, nothing is written then, and writes are never cut.
	 */
	g_local_stop = 0;
	g_stop = &g_local_stop;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	opts_default(&o);
	if (parse_args(argc, argv, &o, &do_list))
		return 2;
	if (do_list) {
		list();
		return 0;
	}
	if ((rc = rg_output_check(o.csv, o.json, msg, sizeof(msg)))) {
		fprintf(stderr, "rgbench bpf: %s\n", msg);
		return rc;	/* 2: unusable path; 1: another run is writing it */
	}
	memset(&c, 0, sizeof(c));
	if (pinner_init(&c.pin, o.cpus, o.ncpus, err_s, sizeof(err_s))) {
		bad("%s", err_s);
		return 2;
	}
	if (check_threads(&o, &c.pin))
		return 2;
	if (!has_caps()) {
		fprintf(stderr, "%s\n", priv_msg);
		return 77;
	}
	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	c.o = &o;
	c.rs = &rs;
	c.out = stdout;
	err = run_all(&c);
	if (stopped()) {
		fprintf(stderr, "rgbench bpf: interrupted by %s; programs detached, no results written\n",
			*g_stop == SIGINT ? "SIGINT" : "SIGTERM");
		rg_results_free(&rs);
		return 128 + *g_stop;
	}
	if (err) {
		fprintf(stderr, "rgbench bpf: %s\n", strerror(-err));
		rc = 1;
	}
	/* Both files are complete and fsync'ed before either is renamed into place. */
	if (!rc && (o.csv || o.json) && rg_results_write(&rs, o.csv, o.json, msg, sizeof(msg))) {
		fprintf(stderr, "rgbench bpf: %s\n", msg);
		rc = 1;
	}
	rg_results_free(&rs);
	return rc;
}

int rg_bpf_run_default(struct rg_resultset *rs, int quick, volatile sig_atomic_t *stop,
		       FILE *progress)
{
	struct ctx c;
	struct opts o;
	char err_s[256];
	int err;

	if (!has_caps()) {
		rg_results_skip(rs, SUITE, "all", "all", "%s", priv_msg + strlen("rgbench bpf: "));
		fprintf(stderr, "%s: skipped the bpf rows\n", priv_msg);
		return 2;
	}
	opts_default(&o);
	o.modes = M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE);
	if (quick) {
		/* Within the default run's minute: 3 samples (a spread) of 0.15 s. */
		o.duration = 0.15;
		o.warmup = 0.1;
		o.reps = 3;
	}
	memset(&c, 0, sizeof(c));
	if (pinner_init(&c.pin, NULL, 0, err_s, sizeof(err_s)))
		return 1;
	c.o = &o;
	c.rs = rs;
	c.out = progress;
	g_stop = stop ? stop : &g_local_stop;
	err = run_all(&c);
	g_stop = &g_local_stop;
	/* Interrupted: the caller sees its stop flag and writes nothing. */
	return err && err != -EINTR ? 1 : 0;
}
