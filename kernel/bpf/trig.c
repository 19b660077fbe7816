// SPDX-License-Identifier: MIT
/* The BPF bench's loaded objects: open either skeleton, configure, load, attach and detach the measured program, read its counters. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_internal.h"
#include "trig.skel.h"
#include "trig_kfunc.skel.h"

/*
 * filter_tgid: count only this process's events in syscall mode (the syscall
 * hooks fire for every process) and in --triggers mode (exact counts even
 * while another process triggers the same global helper or tracepoint); timed
 * driver modes filter nothing, like the kernel's bench.
 */
#define TRIG_SET_RODATA(skel, o, k, m, batch)					\
	do {									\
		(skel)->rodata->count_mode = (int)(o)->count;			\
		(skel)->rodata->recurse = (m) == MODE_RECURSE;			\
		(skel)->rodata->filter_tgid = ((m) == MODE_SYSCALL || (o)->triggers) && \
			!(o)->all_tasks ? (uint32_t)getpid() : 0;		\
		(skel)->rodata->filter_id = (m) == MODE_SYSCALL &&		\
			((k) == K_RAW_TP || (k) == K_TP_BTF) ? __NR_getpgid : -1; \
		(skel)->rodata->batch_iters = (uint32_t)(batch);		\
	} while (0)

bool trig_detach(struct trig *t)
{
	bool was = t->link != NULL;

	bpf_link__destroy(t->link);
	t->link = NULL;
	return was;
}

void trig_close(struct trig *t)
{
	trig_detach(t);
	if (t->s0)
		trig_bpf__destroy(t->s0);
	if (t->s1)
		trig_kfunc_bpf__destroy(t->s1);
	memset(t, 0, sizeof(*t));
}

int trig_driver_fd(const struct trig *t)
{
	return bpf_program__fd(t->driver);
}

int trig_measured_fd(const struct trig *t)
{
	return bpf_program__fd(t->measured);
}

uint64_t trig_hits(const struct trig *t)
{
	uint64_t sum = __atomic_load_n(t->hits_shared, __ATOMIC_RELAXED);

	for (int i = 0; i < RG_TRIG_MAX_CPUS; i++)
		sum += __atomic_load_n(&t->hits[i].value, __ATOMIC_RELAXED);
	return sum;
}

uint64_t trig_misses(const struct trig *t)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (!t || !t->measured || bpf_obj_get_info_by_fd(bpf_program__fd(t->measured), &info, &len))
		return 0;
	return info.recursion_misses;
}

/*
 * Attach the measured program of an attach type (baselines have nothing to
 * attach). Detached again between windows, so that the baseline windows run
 * the same loop with nothing attached. 0 or -errno, why filled.
 */
int trig_attach(struct trig *t, enum rg_kind k, enum rg_mode m, char *why, size_t wsize)
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

		trig_verifier[0] = '\0';
		trig_explain(why, wsize, "attach", k, err);
		return -err;
	}
	return 0;
}

/* What the kernel must offer before (k, m) is opened at all: the kfunc, tracefs. */
static int trig_check_kernel(enum rg_kind k, enum rg_mode m, char *why, size_t wsize)
{
	if (uses_kfunc(k, m) && !trig_kfunc_available()) {
		snprintf(why, wsize, "ENOENT: kfunc " KFUNC_FN " (tracepoint " KFUNC_TP
			 ") not in this kernel (6.10+)");
		return -ENOENT;
	}
	if (k == K_TP && !trig_tracefs_ready()) {
		snprintf(why, wsize, "ENOENT: tracefs not mounted and cannot be mounted (tp needs it)");
		return -ENOENT;
	}
	return 0;
}

/* Open the skeleton (k, m) needs, with its .rodata set. 0, or -errno with why filled. */
static int trig_open_skel(struct trig *t, const struct opts *o, enum rg_kind k, enum rg_mode m,
			  int batch, char *why, size_t wsize)
{
	if (uses_kfunc(k, m)) {
		t->s1 = trig_kfunc_bpf__open();
		if (t->s1) {
			TRIG_SET_RODATA(t->s1, o, k, m, batch);
			t->obj = t->s1->obj;
		}
	} else {
		t->s0 = trig_bpf__open();
		if (t->s0) {
			TRIG_SET_RODATA(t->s0, o, k, m, batch);
			t->obj = t->s0->obj;
		}
	}
	if (!t->obj) {
		int err = errno;

		snprintf(why, wsize, "%s: cannot open the BPF object", strerrorname_np(err) ?: "E?");
		return err ? -err : -EINVAL;
	}
	return 0;
}

/*
 * Load only the programs (k, m) runs: the driver in driver and recurse modes
 * (driver-count's windows alternate with the helper driver's, driver-empty),
 * the measured program with its attach target. 0, or -errno with why filled.
 */
static int trig_select_progs(struct trig *t, enum rg_kind k, enum rg_mode m, char *why,
			     size_t wsize)
{
	const char *target = target_of(k, m);
	int err;

	if (m != MODE_SYSCALL) {
		t->driver = bpf_object__find_program_by_name(t->obj, uses_kfunc(k, m) ?
							     "drv_kfunc" : "drv_helper");
		bpf_program__set_autoload(t->driver, true);
	}
	if (trig_kinds[k].prog) {
		t->measured = bpf_object__find_program_by_name(t->obj, trig_kinds[k].prog);
		bpf_program__set_autoload(t->measured, true);
	}
	if (target && k != K_KPROBE) {
		err = bpf_program__set_attach_target(t->measured, 0, target);
		if (err) {
			trig_explain(why, wsize, "target", k, -err);
			return err;
		}
	}
	return 0;
}

/* Load (the verifier runs here) and map the counters. 0, or -errno with why filled. */
static int trig_load(struct trig *t, enum rg_kind k, char *why, size_t wsize)
{
	int err;

	trig_last_warn[0] = trig_verifier[0] = '\0';
	/* The skeleton's load also maps .bss onto the kernel map (the counters). */
	err = t->s0 ? trig_bpf__load(t->s0) : trig_kfunc_bpf__load(t->s1);
	if (err) {
		trig_explain(why, wsize, "load", k, -err);
		return err;
	}
	t->hits = t->s0 ? t->s0->bss->hits : t->s1->bss->hits;
	t->hits_shared = t->s0 ? &t->s0->bss->hits_shared : &t->s1->bss->hits_shared;
	return 0;
}

/*
 * Open, configure, load and attach what variant (k, m) needs, with the given
 * driver batch. 0, or -errno with a reason in why (the variant is then a
 * skipped row).
 */
int trig_open(struct trig *t, const struct opts *o, enum rg_kind k, enum rg_mode m, int batch,
	      char *why, size_t wsize)
{
	int err;

	memset(t, 0, sizeof(*t));
	err = trig_check_kernel(k, m, why, wsize);
	if (err)
		return err;
	err = trig_open_skel(t, o, k, m, batch, why, wsize);
	if (!err)
		err = trig_select_progs(t, k, m, why, wsize);
	if (!err)
		err = trig_load(t, k, why, wsize);
	if (!err)
		err = trig_attach(t, k, m, why, wsize);
	if (err)
		trig_close(t);	/* the variant becomes a skipped row saying why */
	return err;
}
