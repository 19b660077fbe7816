/* SPDX-License-Identifier: MIT */
/* The machine a result was measured on: recorded in every result row. */
#ifndef RG_ENV_H
#define RG_ENV_H

#include <stdbool.h>

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

/* True when the CPU implements LSE atomics (aarch64: HWCAP_ATOMICS). */
bool rg_cpu_has_lse(void);

#endif /* RG_ENV_H */
