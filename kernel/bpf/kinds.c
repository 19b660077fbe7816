// SPDX-License-Identifier: MIT
/* The BPF bench's attach kinds and modes, what the kernel's errno means for each, libbpf's messages and the kernel feature probes. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf_internal.h"

/* ---- what can be measured ---- */

const char *const trig_mode_names[NR_MODES] = { "syscall", "driver", "recurse" };
const char *const trig_count_names[NR_COUNTS] = { "percpu", "atomic", "percpu-atomic" };

const struct kind_info trig_kinds[NR_KINDS] = {
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

/* Which driver a driver/recurse variant runs: the helper or the kfunc one. */
bool uses_kfunc(enum rg_kind k, enum rg_mode m)
{
	if (m == MODE_SYSCALL)
		return false;
	return k == K_DRV_KFUNC || k == K_FMOD_RET || k == K_TP || k == K_RAW_TP ||
	       k == K_TP_BTF;
}

/* The baseline an attach type's ns-per-event is measured over. */
enum rg_kind baseline_of(enum rg_kind k, enum rg_mode m)
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
int pair_of(enum rg_kind k, enum rg_mode m)
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
const char *role_of(enum rg_kind k)
{
	if (is_baseline(k))
		return "baseline";
	return k == K_TP || k == K_KPROBE ? "bpf-prog-active" : "prog-active";
}

/* The attach target of (k, m), NULL when the program type has none to set. */
const char *target_of(enum rg_kind k, enum rg_mode m)
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

/* ---- libbpf messages: kept quiet unless -v, last warning kept for reasons ---- */

static bool g_verbose;
char trig_last_warn[200];
char trig_verifier[160];

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
		snprintf(trig_last_warn, sizeof(trig_last_warn), "%.*s", (int)strcspn(msg, "\n"), msg);
		log = strstr(msg, "-- BEGIN PROG LOAD LOG --");
		if (log) {
			log += strlen("-- BEGIN PROG LOAD LOG --");
			log += strspn(log, "\n");
			snprintf(trig_verifier, sizeof(trig_verifier), "%.*s", (int)strcspn(log, "\n"), log);
		}
	}
	if (!g_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void trig_messages_init(bool verbose)
{
	libbpf_set_print(libbpf_print);
	g_verbose = verbose;
}

/* ---- privileges ---- */

bool trig_has_caps(void)
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

const char trig_priv_msg[] =
	"rgbench bpf: needs root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN on kernels before 5.8), "
	"to load and attach BPF programs";

/* ---- errno -> reason ---- */

void trig_explain(char *buf, size_t size, const char *what, enum rg_kind k, int err)
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
		 trig_kinds[k].name, what, meaning, trig_verifier[0] ? "; verifier: " : "", trig_verifier);
}

/* ---- kernel feature probes ---- */

int trig_kfunc_available(void)
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
bool trig_tracefs_ready(void)
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
