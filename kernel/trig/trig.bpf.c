// SPDX-License-Identifier: MIT
/* BPF side of the trigger bench: counting programs for every attach type, drivers, recursion. */
/*
 * Built twice: trig.bpf.o (no kfunc; loads on any 5.x+ kernel with BTF) and,
 * with -DRG_KFUNC=1, trig_kfunc.bpf.o, which also calls the kfunc
 * bpf_modify_return_test_tp() (6.10+) that fires the bpf_trigger_tp
 * tracepoint. Keeping the kfunc out of the first object lets fentry/kprobe
 * rows load on kernels without it: libbpf resolves every extern of an object
 * at load time, whether or not the program that uses it is loaded.
 *
 * Every program is declared with a "?" section (not loaded by default); the
 * loader enables only the driver and the program being measured, so a type
 * the kernel refuses cannot take the others down with it. Attach targets are
 * set at run time (they differ between the syscall and the driver mode).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rg/trig_common.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load; .rodata is frozen, so the verifier fixes
 * the branches these decide (the code they switch off never runs), but each
 * knob's load stays: in syscall raw_tp with --count atomic, 23 instructions
 * against the kernel bench's 8 (docs/bpf.md, "The two loops side by side"). */
const volatile int count_mode;		/* enum count_method: 0 percpu, 1 atomic, 2 percpu-atomic */
const volatile int recurse;		/* 1: re-trigger the own hook once per hit */
const volatile __u32 filter_tgid;	/* !0: count only this process (syscall mode) */
const volatile long filter_id = -1;	/* >=0: raw_tp/tp_btf sys_enter: only this syscall */
const volatile __u32 batch_iters = 1;	/* driver loop trips per test run */

/* Per-CPU hit counters, each in its own 128-byte slot (no false sharing). */
struct rg_trig_counter hits[RG_TRIG_MAX_CPUS];
/* The kernel bench's way in 6.1: one shared counter, atomically incremented. */
__u64 hits_shared;

/*
 * percpu: a plain load-add-store on the CPU's slot; percpu-atomic: an atomic
 * add on it (BPF_ATOMIC | BPF_ADD, the result unused), as upstream's bench
 * (trigger_bench.c) counts today; atomic: one shared counter.
 */
static __always_inline void count_hit(void)
{
	if (count_mode == 1) {
		__sync_fetch_and_add(&hits_shared, 1);
	} else {
		__u32 cpu = bpf_get_smp_processor_id();

		if (count_mode == 2)
			__sync_fetch_and_add(&hits[cpu & (RG_TRIG_MAX_CPUS - 1)].value, 1);
		else
			hits[cpu & (RG_TRIG_MAX_CPUS - 1)].value++;
	}
}

static __always_inline int other_tgid(void)
{
	return filter_tgid && (__u32)(bpf_get_current_pid_tgid() >> 32) != filter_tgid;
}

#if RG_KFUNC
extern int bpf_modify_return_test_tp(int nonce) __ksym;
#define RETRIGGER_TP() ((void)bpf_modify_return_test_tp(0))
#else
#define RETRIGGER_TP() ((void)0)
#endif

/* ---- measured programs ---- */

/* tp/syscalls/sys_enter_getpgid or tp/bpf_test_run/bpf_trigger_tp. */
SEC("?tp")
int trig_tp(void *ctx)
{
	if (other_tgid())
		return 0;
	count_hit();
	return 0;
}

/*
 * The body of raw_tp and tp_btf, which differ only in how they read the
 * tracepoint's second argument (sys_enter's id): a macro, so that each
 * program is the very code written out in it.
 */
#define RAW_TP_BODY(id)						\
	do {							\
		if (filter_id >= 0 && (long)(id) != filter_id)	\
			return 0;				\
		if (other_tgid())				\
			return 0;				\
		count_hit();					\
		if (recurse)					\
			RETRIGGER_TP();				\
		return 0;					\
	} while (0)

/* raw_tp/sys_enter (args: regs, id) or raw_tp/bpf_trigger_tp (args: nonce). */
SEC("?raw_tp")
int trig_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	RAW_TP_BODY(ctx->args[1]);
}

/* tp_btf/sys_enter or tp_btf/bpf_trigger_tp. */
SEC("?tp_btf")
int trig_tp_btf(__u64 *ctx)
{
	RAW_TP_BODY(ctx[1]);
}

/* fentry/fexit/kprobe on the syscall function or on bpf_get_numa_node_id;
 * recurse: call that helper again, so the program's own hook fires nested. */
static __always_inline int helper_hook(void)
{
	if (other_tgid())
		return 0;
	count_hit();
	if (recurse)
		(void)bpf_get_numa_node_id();
	return 0;
}

SEC("?fentry")
int trig_fentry(void *ctx)
{
	return helper_hook();
}

SEC("?fexit")
int trig_fexit(void *ctx)
{
	return helper_hook();
}

/* Returns 0: the original function still runs (only the hook is measured). */
SEC("?fmod_ret")
int trig_fmod_ret(void *ctx)
{
	if (other_tgid())
		return 0;
	count_hit();
	return 0;
}

SEC("?kprobe")
int trig_kprobe(void *ctx)
{
	return helper_hook();
}

/* ---- drivers, run with bpf_prog_test_run_opts() ---- */

/* Calls the helper fentry/fexit/kprobe attach to, batch_iters times. */
SEC("?raw_tp")
int drv_helper(void *ctx)
{
	for (__u32 i = 0; i < batch_iters; i++)
		(void)bpf_get_numa_node_id();
	return 0;
}

/*
 * driver-count: the helper driver's loop plus the inline count an attached
 * program does, with nothing attached. It composes: driver-count minus
 * driver-empty is the count itself, and an attach type over driver-count is
 * the hook's cost without the counting.
 */
SEC("?raw_tp")
int drv_count(void *ctx)
{
	for (__u32 i = 0; i < batch_iters; i++) {
		(void)bpf_get_numa_node_id();
		count_hit();
	}
	return 0;
}

#if RG_KFUNC
/* Fires tracepoint bpf_trigger_tp batch_iters times (tp, raw_tp, tp_btf). */
SEC("?raw_tp")
int drv_kfunc(void *ctx)
{
	for (__u32 i = 0; i < batch_iters; i++)
		RETRIGGER_TP();
	return 0;
}
#endif
