// SPDX-License-Identifier: MIT
/* rgbench bpf: trig-* style BPF trigger bench (libbpf) with recursion-miss counts, in the shared schema. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#if RG_HAVE_HWLOC
#include "topo.h"
#endif

#include "rg/env.h"
#include "rg/result.h"
#include "rg/subcmd.h"
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
	[K_DRV_EMPTY] = { "driver-empty", NULL, M(MODE_DRIVER) | M(MODE_RECURSE),
		"driver calls " HELPER_FN "() batch times, nothing attached" },
	[K_DRV_KFUNC] = { "driver-kfunc", NULL, M(MODE_DRIVER) | M(MODE_RECURSE),
		"driver calls kfunc " KFUNC_FN "() batch times, nothing attached (6.10+)" },
	[K_DRV_COUNT] = { "driver-count", "drv_count", M(MODE_DRIVER),
		"driver counts in BPF itself (theoretical limit)" },
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

/* ---- options ---- */

enum count_method { COUNT_PERCPU, COUNT_ATOMIC };

struct opts {
	unsigned modes;			/* bit per mode */
	bool want[NR_KINDS];
	bool explicit_kinds;
	int producers;
	double duration, warmup;
	int batch;
	enum count_method count;
	uint64_t triggers;		/* fixed-count mode: triggers per producer (0: timed) */
	bool all_tasks;			/* syscall mode: count every process's getpgid */
	const char *csv, *json;
	bool verbose;
};

static void opts_default(struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->modes = M(MODE_SYSCALL) | M(MODE_DRIVER);
	for (int k = 0; k < NR_KINDS; k++)
		o->want[k] = true;
	o->producers = 1;
	o->duration = 5;
	o->warmup = 1;
	o->batch = 100;
	o->count = COUNT_PERCPU;
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
 * hwloc and takes the affinity mask in CPU order instead.
 */
static void pinner_init(struct pinner *p)
{
	memset(p, 0, sizeof(*p));
#if RG_HAVE_HWLOC
	char err[256];

	if (!rg_topo_init(err, sizeof(err))) {
		p->ncpus = rg_topo_order(p->cpu, RG_TRIG_MAX_CPUS);
		p->how = "hwloc";
		if (p->ncpus > 0)
			return;
	}
	p->ncpus = 0;
#endif
	cpu_set_t set;

	p->how = "affinity";
	if (sched_getaffinity(0, sizeof(set), &set)) {
		p->how = "none";
		return;
	}
	for (int c = 0; c < CPU_SETSIZE && p->ncpus < RG_TRIG_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			p->cpu[p->ncpus++] = c;
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

static void pinner_fini(struct pinner *p)
{
	(void)p;	/* the topology stays loaded for the rest of the process */
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

#define TRIG_SET_RODATA(skel, o, k, m)						\
	do {									\
		(skel)->rodata->count_atomic = (o)->count == COUNT_ATOMIC;	\
		(skel)->rodata->recurse = (m) == MODE_RECURSE;			\
		(skel)->rodata->filter_tgid = (m) == MODE_SYSCALL && !(o)->all_tasks ? \
			(uint32_t)getpid() : 0;					\
		(skel)->rodata->filter_id = (m) == MODE_SYSCALL &&		\
			((k) == K_RAW_TP || (k) == K_TP_BTF) ? __NR_getpgid : -1; \
		(skel)->rodata->batch_iters = (uint32_t)(o)->batch;		\
	} while (0)

static void trig_close(struct trig *t)
{
	bpf_link__destroy(t->link);
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

/*
 * Open, configure, load and attach what variant (k, m) needs. 0, or -errno
 * with a reason in why (the variant is then a skipped row).
 */
static int trig_open(struct trig *t, const struct opts *o, enum rg_kind k, enum rg_mode m,
		     char *why, size_t wsize)
{
	const char *drv = NULL, *target = NULL;
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
		TRIG_SET_RODATA(t->s1, o, k, m);
		t->obj = t->s1->obj;
	} else {
		t->s0 = trig_bpf__open();
		if (!t->s0)
			goto open_fail;
		TRIG_SET_RODATA(t->s0, o, k, m);
		t->obj = t->s0->obj;
	}

	if (m != MODE_SYSCALL && k != K_DRV_COUNT)
		drv = kf ? "drv_kfunc" : "drv_helper";
	if (drv) {
		t->driver = bpf_object__find_program_by_name(t->obj, drv);
		bpf_program__set_autoload(t->driver, true);
	}
	if (kinds[k].prog) {
		t->measured = bpf_object__find_program_by_name(t->obj, kinds[k].prog);
		bpf_program__set_autoload(t->measured, true);
	}
	switch (k) {
	case K_FENTRY: case K_FEXIT: case K_KPROBE:
		target = m == MODE_SYSCALL ? SYSCALL_FN : HELPER_FN;
		break;
	case K_FMOD_RET:
		target = m == MODE_SYSCALL ? SYSCALL_FN : KFUNC_FN;
		break;
	case K_TP_BTF:
		target = m == MODE_SYSCALL ? "sys_enter" : KFUNC_TP;
		break;
	default:
		break;
	}
	if (target && k != K_KPROBE) {
		err = bpf_program__set_attach_target(t->measured, 0, target);
		if (err) {
			explain(why, wsize, "target " , k, -err);
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

	if (t->measured && k != K_DRV_COUNT) {
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
			t->link = bpf_program__attach_kprobe(t->measured, false, target);
			break;
		default:
			t->link = bpf_program__attach(t->measured);
			break;
		}
		if (!t->link) {
			err = -errno;
			g_verifier[0] = '\0';
			explain(why, wsize, "attach", k, -err);
			goto fail;
		}
	}
	t->hits = t->s0 ? t->s0->bss->hits : t->s1->bss->hits;
	t->hits_shared = t->s0 ? &t->s0->bss->hits_shared : &t->s1->bss->hits_shared;
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

enum loop { LOOP_SYSCALL, LOOP_SYSCALL_COUNT, LOOP_USER_COUNT, LOOP_DRIVER, LOOP_DRIVER_COUNT };

struct run {
	enum loop loop;
	bool atomic_count;
	int prog_fd;
	int batch;
	uint64_t limit;			/* triggers per producer; UINT64_MAX: until stop */
	const struct pinner *pin;
	pthread_barrier_t start;
	atomic_int stop;
	atomic_int errors;
	atomic_int unpinned;		/* producers whose pinning failed */
	struct ucounter *ucnt;		/* one per producer */
	struct ucounter shared;		/* --count atomic */
};

struct producer {
	struct run *run;
	int idx;
	pthread_t tid;
};

static inline void ucount(struct run *r, struct ucounter *c, uint64_t n)
{
	if (r->atomic_count)
		__atomic_fetch_add(&r->shared.value, n, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&c->value, c->value + n, __ATOMIC_RELAXED);
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	struct run *r = p->run;
	struct ucounter *c = &r->ucnt[p->idx];
	uint64_t n, limit = r->limit;

	if (pin_self(r->pin, p->idx))
		atomic_fetch_add(&r->unpinned, 1);
	pthread_barrier_wait(&r->start);

	/* One loop per trigger kind: nothing indirect inside the measured loop. */
	switch (r->loop) {
	case LOOP_SYSCALL:
		for (n = 0; n < limit && !atomic_load_explicit(&r->stop, memory_order_relaxed); n++)
			(void)syscall(__NR_getpgid);
		break;
	case LOOP_SYSCALL_COUNT:
		for (n = 0; n < limit && !atomic_load_explicit(&r->stop, memory_order_relaxed); n++) {
			(void)syscall(__NR_getpgid);
			ucount(r, c, 1);
		}
		break;
	case LOOP_USER_COUNT:
		for (n = 0; n < limit && !atomic_load_explicit(&r->stop, memory_order_relaxed); n++)
			ucount(r, c, 1);
		break;
	case LOOP_DRIVER:
	case LOOP_DRIVER_COUNT: {
		LIBBPF_OPTS(bpf_test_run_opts, topts);
		uint64_t runs = limit == UINT64_MAX ? UINT64_MAX : limit / (uint64_t)r->batch;
		bool cnt = r->loop == LOOP_DRIVER_COUNT;

		for (n = 0; n < runs && !atomic_load_explicit(&r->stop, memory_order_relaxed); n++) {
			if (bpf_prog_test_run_opts(r->prog_fd, &topts)) {
				atomic_fetch_add(&r->errors, 1);
				break;
			}
			if (cnt)
				ucount(r, c, (uint64_t)r->batch);
		}
		break;
	}
	}
	return NULL;
}

static uint64_t user_hits(struct run *r, int np)
{
	uint64_t sum = __atomic_load_n(&r->shared.value, __ATOMIC_RELAXED);

	for (int i = 0; i < np; i++)
		sum += __atomic_load_n(&r->ucnt[i].value, __ATOMIC_RELAXED);
	return sum;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (double)(time_t)t) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* ---- one variant ---- */

struct measured {
	double *mops;		/* per-second samples, M events/s, all producers */
	size_t n;
	uint64_t hits, misses;
	double mean;		/* mean M/s */
};

static double g_base_mops[NR_MODES][NR_KINDS];	/* baseline means of this run */

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

static int run_variant(struct rg_resultset *rs, const struct opts *o, const struct pinner *pin,
		       enum rg_kind k, enum rg_mode m)
{
	const char *mode = mode_names[m];
	char why[256];
	struct trig t;
	struct run *r;
	struct producer *prod;
	struct rg_result *row;
	struct measured res = { 0 };
	bool bpf_counted = kinds[k].prog != NULL;
	uint64_t h0 = 0, m0 = 0;
	double t0, tend;
	int np = o->producers, err = 0;

	why[0] = '\0';
	if (k == K_USER_COUNT) {
		memset(&t, 0, sizeof(t));
	} else {
		err = trig_open(&t, o, k, m, why, sizeof(why));
		if (err) {
			if (!rg_results_skip(rs, SUITE, kinds[k].name, mode, "%s", why))
				return -ENOMEM;
			printf("%-13s %-8s skipped: %s\n", kinds[k].name, mode, why);
			if (o->verbose && g_last_warn[0])
				printf("%-13s %-8s libbpf: %s\n", "", "", g_last_warn);
			return 0;
		}
	}

	r = calloc(1, sizeof(*r));
	prod = calloc((size_t)np, sizeof(*prod));
	if (r)
		r->ucnt = aligned_alloc(128, sizeof(struct ucounter) * (size_t)np);
	if (!r || !prod || !r->ucnt) {
		if (r)
			free(r->ucnt);
		free(r);
		free(prod);
		trig_close(&t);
		return -ENOMEM;
	}
	memset(r->ucnt, 0, sizeof(struct ucounter) * (size_t)np);
	r->atomic_count = o->count == COUNT_ATOMIC;
	r->batch = o->batch;
	r->limit = o->triggers ? o->triggers : UINT64_MAX;
	r->pin = pin;
	switch (k) {
	case K_BASE: r->loop = LOOP_SYSCALL_COUNT; break;
	case K_USER_COUNT: r->loop = LOOP_USER_COUNT; break;
	case K_DRV_EMPTY: case K_DRV_KFUNC: r->loop = LOOP_DRIVER_COUNT; break;
	default: r->loop = m == MODE_SYSCALL ? LOOP_SYSCALL : LOOP_DRIVER; break;
	}
	if (r->loop == LOOP_DRIVER || r->loop == LOOP_DRIVER_COUNT)
		r->prog_fd = bpf_program__fd(k == K_DRV_COUNT ? t.measured : t.driver);
	pthread_barrier_init(&r->start, NULL, (unsigned)np + 1);
	for (int i = 0; i < np; i++) {
		prod[i].run = r;
		prod[i].idx = i;
		if (pthread_create(&prod[i].tid, NULL, producer_main, &prod[i])) {
			fprintf(stderr, "rgbench bpf: cannot start producer %d\n", i);
			exit(1);	/* the barrier would hang; nothing written yet */
		}
	}

	size_t maxs = o->triggers ? 1 : (size_t)ceil(o->duration) + 1;

	res.mops = calloc(maxs, sizeof(double));
	pthread_barrier_wait(&r->start);
	t0 = now_s();
	if (o->triggers) {
		for (int i = 0; i < np; i++)
			pthread_join(prod[i].tid, NULL);
		tend = now_s();
		res.hits = bpf_counted ? trig_hits(&t) : user_hits(r, np);
		res.misses = prog_misses(t.measured);
		if (res.mops && tend > t0)
			res.mops[res.n++] = (double)res.hits / (tend - t0) / 1e6;
	} else {
		double tw = t0 + o->warmup, ts, end;
		uint64_t prev;

		sleep_until(tw);
		prev = h0 = bpf_counted ? trig_hits(&t) : user_hits(r, np);
		m0 = prog_misses(t.measured);
		ts = now_s();
		end = ts + o->duration;
		while (res.mops && res.n < maxs) {
			double next = ts + 1.0 < end ? ts + 1.0 : end, tnow;
			uint64_t cur;

			sleep_until(next);
			cur = bpf_counted ? trig_hits(&t) : user_hits(r, np);
			tnow = now_s();
			if (tnow - ts > 0.05)	/* a tail shorter than 50 ms is noise */
				res.mops[res.n++] = (double)(cur - prev) / (tnow - ts) / 1e6;
			prev = cur;
			ts = tnow;
			if (ts >= end - 1e-3)
				break;
		}
		res.hits = prev - h0;
		res.misses = prog_misses(t.measured) - m0;
		atomic_store(&r->stop, 1);
		for (int i = 0; i < np; i++)
			pthread_join(prod[i].tid, NULL);
	}

	row = rg_results_add(rs, SUITE, kinds[k].name, mode);
	if (!row || !res.mops) {
		err = -ENOMEM;
		goto out;
	}
	if (atomic_load(&r->unpinned)) {
		snprintf(row->pinning, sizeof(row->pinning), "none");
	} else {
		snprintf(row->pinning, sizeof(row->pinning), "%s", pin->how);
		cpus_string(pin, np, row->cpus, sizeof(row->cpus));
	}
	row->threads = np;
	row->batch = m == MODE_SYSCALL ? 1 : o->batch;
	row->refusals = res.misses;
	row->ops = res.hits;
	if (atomic_load(&r->errors)) {
		snprintf(row->status, sizeof(row->status), "error");
		snprintf(row->reason, sizeof(row->reason),
			 "bpf_prog_test_run_opts failed in %d producer(s)", atomic_load(&r->errors));
	}

	/* ns per event per producer, over the matching baseline of this run. */
	double *ns = NULL;
	enum rg_kind bk = baseline_of(k, m);

	if (!is_baseline(k) && !o->triggers && g_base_mops[m][bk] > 0 && res.n) {
		double base_ns = 1e3 * np / g_base_mops[m][bk];

		ns = calloc(res.n, sizeof(double));
		for (size_t i = 0; ns && i < res.n; i++)
			ns[i] = res.mops[i] > 0 ? 1e3 * np / res.mops[i] - base_ns : NAN;
	}
	if (rg_result_set_samples(row, ns, res.mops, res.n))
		err = -ENOMEM;
	free(ns);
	res.mean = rg_stat_mean(res.mops, res.n);
	if (is_baseline(k) && !o->triggers)
		g_base_mops[m][k] = res.mean;

	if (o->triggers)
		printf("%-13s %-8s p=%d triggers=%llu hits=%llu misses=%llu%s\n", kinds[k].name, mode,
		       np, (unsigned long long)o->triggers * (unsigned long long)np,
		       (unsigned long long)res.hits, (unsigned long long)res.misses,
		       atomic_load(&r->errors) ? " (test_run errors)" : "");
	else
	{
		char nsb[48] = "", sdb[16] = "n/a";
		double sd = rg_stat_stddev(res.mops, res.n);

		if (!isnan(sd))
			snprintf(sdb, sizeof(sdb), "%.3f", sd);
		if (!isnan(row->ns_mean))
			snprintf(nsb, sizeof(nsb), "%+.2f ns/event over %s, ", row->ns_mean,
				 kinds[bk].name);
		printf("%-13s %-8s p=%d hits %8.3f ± %6s M/s (%7.3f M/prod)  %smisses %llu\n",
		       kinds[k].name, mode, np, res.mean, sdb,
		       res.mean / np, nsb, (unsigned long long)res.misses);
	}
	fflush(stdout);
out:
	pthread_barrier_destroy(&r->start);
	free(res.mops);
	free(r->ucnt);
	free(r);
	free(prod);
	trig_close(&t);
	return err;
}

/* Run every wanted variant, each mode's needed baselines first. */
static int run_all(struct rg_resultset *rs, const struct opts *o)
{
	struct pinner pin;
	int err = 0;

	libbpf_set_print(libbpf_print);
	g_verbose = o->verbose;
	memset(g_base_mops, 0, sizeof(g_base_mops));
	pinner_init(&pin);
	for (int m = 0; m < NR_MODES && !err; m++) {
		bool need[NR_KINDS] = { 0 };

		if (!(o->modes & M(m)))
			continue;
		for (int k = 0; k < NR_KINDS; k++) {
			if (!o->want[k])
				continue;
			need[k] = true;
			if (!is_baseline((enum rg_kind)k) && !o->triggers &&
			    (kinds[k].modes & M(m)))
				need[baseline_of((enum rg_kind)k, (enum rg_mode)m)] = true;
		}
		for (int k = 0; k < NR_KINDS && !err; k++) {
			if (!need[k])
				continue;
			if (!(kinds[k].modes & M(m))) {
				/* Asked for explicitly but meaningless here: say so. */
				if (o->explicit_kinds && !is_baseline((enum rg_kind)k)) {
					if (!rg_results_skip(rs, SUITE, kinds[k].name, mode_names[m],
							     "%s has no %s path in rgbench bpf (see --list)",
							     kinds[k].name, mode_names[m]))
						err = -ENOMEM;
					else
						printf("%-13s %-8s skipped: no %s path\n", kinds[k].name,
						       mode_names[m], mode_names[m]);
				}
				continue;
			}
			err = run_variant(rs, o, &pin, (enum rg_kind)k, (enum rg_mode)m);
		}
	}
	pinner_fini(&pin);
	return err;
}

/* ---- CLI ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rgbench bpf [--list] [--mode syscall,driver,recurse|all] [--recurse]\n"
		"                   [--attach fentry,raw_tp,...|all] [-p N] [--duration S] [--warmup S]\n"
		"                   [--batch N] [--count percpu|atomic] [--triggers N]\n"
		"                   [--all-tasks] [--out F.csv] [--json F.json] [-v]\n"
		"  --mode      trigger modes to run (default syscall,driver); recurse: the program\n"
		"              re-triggers its own hook once per hit (driver-triggered)\n"
		"  --recurse   same as --mode recurse\n"
		"  --attach    attach types and baselines to run (default all; see --list)\n"
		"  -p N        producers, pinned one per CPU in topology order (default 1)\n"
		"  --duration  seconds measured, one sample per second (default 5)\n"
		"  --warmup    seconds before measuring (default 1)\n"
		"  --batch     driver loop trips per bpf_prog_test_run (1..%d, default 100)\n"
		"  --count     hit counters: percpu (padded per-CPU slots, default) or atomic\n"
		"              (one shared atomic, like the kernel's bench)\n"
		"  --triggers  fixed-count mode: each producer triggers exactly N events (a multiple\n"
		"              of --batch in driver modes), then hits/misses are reported\n"
		"  --all-tasks syscall mode: count hooks fired by any process (like the kernel's\n"
		"              bench; default: only this process's producers, one helper call more)\n"
		"  --out/--json  write the rows (suite=bpf) in the shared schema, atomically\n"
		"Exit status: 0 done (refused types are 'skipped' rows), 1 bad input or I/O error,\n"
		"2 not enough privilege.\n", RG_TRIG_MAX_BATCH);
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

static int parse_num(const char *s, double lo, double hi, double *out, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "rgbench bpf: %s must be a number in [%g, %g], not '%s'\n",
			what, lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_list(const char *arg, struct opts *o, bool modes)
{
	char *dup = strdup(arg), *save = NULL, *tok;
	int rc = 0;

	if (!dup)
		return -1;
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
			fprintf(stderr, "rgbench bpf: unknown %s '%s' (see rgbench bpf --list)\n",
				modes ? "mode" : "attach type", tok);
			rc = -1;
			break;
		}
	}
	free(dup);
	return rc;
}

static int parse_args(int argc, char **argv, struct opts *o, bool *do_list)
{
	static const struct option lo[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "mode", required_argument, NULL, 'm' },
		{ "recurse", no_argument, NULL, 'r' },
		{ "attach", required_argument, NULL, 'a' },
		{ "producers", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
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
	double v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:w:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'l': *do_list = true; break;
		case 'm': if (parse_list(optarg, o, true)) return -1; break;
		case 'r': o->modes = M(MODE_RECURSE); break;
		case 'a':
			if (parse_list(optarg, o, false))
				return -1;
			o->explicit_kinds = true;
			break;
		case 'p':
			if (parse_num(optarg, 1, RG_TRIG_MAX_CPUS, &v, "-p") || v != (int)v)
				return -1;
			o->producers = (int)v;
			break;
		case 'd': if (parse_num(optarg, 0.1, 3600, &o->duration, "--duration")) return -1; break;
		case 'w': if (parse_num(optarg, 0, 3600, &o->warmup, "--warmup")) return -1; break;
		case 'b':
			if (parse_num(optarg, 1, RG_TRIG_MAX_BATCH, &v, "--batch") || v != (int)v)
				return -1;
			o->batch = (int)v;
			break;
		case 'c':
			if (!strcmp(optarg, "percpu"))
				o->count = COUNT_PERCPU;
			else if (!strcmp(optarg, "atomic"))
				o->count = COUNT_ATOMIC;
			else {
				fprintf(stderr, "rgbench bpf: --count must be percpu or atomic, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 't':
			if (parse_num(optarg, 1, 1e12, &v, "--triggers") || v != (double)(uint64_t)v)
				return -1;
			o->triggers = (uint64_t)v;
			break;
		case 'o': o->csv = optarg; break;
		case 'j': o->json = optarg; break;
		case 'A': o->all_tasks = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(0);
		case ':':
			fprintf(stderr, "rgbench bpf: option '%s' needs a value\n", argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "rgbench bpf: unknown option '%s' (see rgbench bpf --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rgbench bpf: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->triggers && (o->modes & (M(MODE_DRIVER) | M(MODE_RECURSE))) &&
	    o->triggers % (uint64_t)o->batch) {
		fprintf(stderr, "rgbench bpf: --triggers must be a multiple of --batch (%d) in driver modes\n",
			o->batch);
		return -1;
	}
	return 0;
}

int rg_bpf_main(int argc, char **argv)
{
	struct rg_resultset rs;
	struct rg_env env;
	struct opts o;
	bool do_list = false;
	int err, rc = 0;
	char msg[4352];

	opts_default(&o);
	if (parse_args(argc, argv, &o, &do_list))
		return 1;
	if (do_list) {
		list();
		return 0;
	}
	if ((rc = rg_output_check(o.csv, o.json, msg, sizeof(msg)))) {
		fprintf(stderr, "rgbench bpf: %s\n", msg);
		return rc;	/* 2: unusable path; 1: another run is writing it */
	}
	if (!has_caps()) {
		fprintf(stderr, "%s\n", priv_msg);
		return 2;
	}
	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	err = run_all(&rs, &o);
	if (err) {
		fprintf(stderr, "rgbench bpf: %s\n", strerror(-err));
		rc = 1;
	}
	if (!rc && o.csv && (err = rg_results_write_csv(&rs, o.csv))) {
		fprintf(stderr, "rgbench bpf: cannot write %s: %s\n", o.csv, strerror(-err));
		rc = 1;
	}
	if (!rc && o.json && (err = rg_results_write_json(&rs, o.json))) {
		fprintf(stderr, "rgbench bpf: cannot write %s: %s\n", o.json, strerror(-err));
		rc = 1;
	}
	rg_results_free(&rs);
	return rc;
}

int rg_bpf_run_default(struct rg_resultset *rs, int quick)
{
	struct opts o;

	if (!has_caps()) {
		rg_results_skip(rs, SUITE, "all", "all", "%s", priv_msg + strlen("rgbench bpf: "));
		fprintf(stderr, "%s: skipped the bpf rows\n", priv_msg);
		return 2;
	}
	opts_default(&o);
	o.modes = M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE);
	if (quick) {
		o.duration = 1;
		o.warmup = 0.2;
	}
	return run_all(rs, &o) ? 1 : 0;
}
