/* SPDX-License-Identifier: MIT */
/* The machine a result was measured on: recorded in every result row. */
#ifndef RG_ENV_H
#define RG_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rg/cpu_limit.h"	/* RG_MAX_CPUS */

#define RG_ENV_STR 128

struct rg_env {
	char host[RG_ENV_STR];		/* uname nodename */
	char arch[16];			/* "x86_64" / "aarch64" */
	char cpu_vendor[64];		/* CPUID vendor, or MIDR implementer name */
	char cpu_model[RG_ENV_STR];	/* brand string, or decoded MIDR part name */
	char cpu_part[64];		/* "fam 0x19 model 0x1 step 0x1" / "midr 0x410fd4f0" */
	char kernel[RG_ENV_STR];	/* uname release */
	char virt[64];			/* none / kvm / xen / ... / emulated (qemu-user) / unknown */
	char preempt[32];		/* none/voluntary/full/dynamic(...)/rt/unknown */
	bool lse;			/* aarch64 LSE atomics usable (always false on x86) */
	bool rseq;			/* glibc registered rseq for this thread */
	int ncpus_online;
};

/* Fill *env; never fails (unknown fields become "unknown"). */
void rg_env_collect(struct rg_env *env);

/* The two virt values that mean "timings are an emulator's, not this CPU's". */
#define RG_VIRT_QEMU_USER	"emulated (qemu-user)"
#define RG_VIRT_QEMU_TCG	"emulated (qemu-tcg)"

/* What the CPU itself says, the input of the virt decision besides files. */
struct rg_virt_cpu {
	bool x86;			/* decide for x86-64 (else arm64) */
	bool hv_bit;			/* x86: CPUID.1:ECX[31], "running under a hypervisor" */
	char hv_sig[13];		/* x86: CPUID 0x40000000 EBX:ECX:EDX, "" when none */
	bool mrs_midr_known;		/* arm64: MIDR_EL1 read by mrs (kernel- or qemu-emulated) */
	uint32_t mrs_midr;
};

/*
 * The virt column: "none", a hypervisor name (kvm, xen, hyperv, vmware, nitro,
 * virtualbox, parallels, bhyve, acrn, qnx, "qemu" when qemu's board cannot tell
 * KVM from TCG, "hypervisor <sig>" for an unknown CPUID signature),
 * RG_VIRT_QEMU_USER, RG_VIRT_QEMU_TCG, or "unknown". Files are read under root
 * ("" for this machine; tests pass a fake tree): /proc/cpuinfo, /sys/hypervisor/type,
 * /sys/class/dmi/id/{sys_vendor,product_name}, /proc/device-tree/{compatible,hypervisor/},
 * cpu0's midr_el1 and the armv8_* PMU event lists. Order and reasons: arch/env_virt.c.
 */
void rg_env_virt_decide(const char *root, const struct rg_virt_cpu *cpu, char *out, size_t len);

/* True for a virt value that says the CPU was emulated (timings are not the hardware's). */
bool rg_env_virt_emulated(const char *virt);

/* True when the CPU implements LSE atomics (aarch64: HWCAP_ATOMICS). */
bool rg_cpu_has_lse(void);

#endif /* RG_ENV_H */
