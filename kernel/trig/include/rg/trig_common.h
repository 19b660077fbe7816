/* SPDX-License-Identifier: MIT */
/* Layout shared by the trigger bench's BPF programs and its loader. */
#ifndef RG_TRIG_COMMON_H
#define RG_TRIG_COMMON_H

#include "rg/cpu_limit.h"	/* no includes of its own: fine in a BPF program */

/* Power of two: the BPF side masks the CPU number with it. */
#define RG_TRIG_MAX_CPUS RG_MAX_CPUS
/*
 * Largest driver batch. The batch is a frozen .rodata constant, so the
 * verifier walks every trip of the drivers' loops at load time: 20000 trips
 * stay far below its 1M-instruction budget.
 */
#define RG_TRIG_MAX_BATCH 20000

struct rg_trig_counter {
	__u64 value;
} __attribute__((aligned(128)));

#endif /* RG_TRIG_COMMON_H */
