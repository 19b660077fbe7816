/* SPDX-License-Identifier: MIT */
/* Layout shared by the trigger bench's BPF programs and its loader. */
#ifndef RG_TRIG_COMMON_H
#define RG_TRIG_COMMON_H

/* Power of two: the BPF side masks the CPU number with it. */
#define RG_TRIG_MAX_CPUS 1024
/* Largest driver batch (the verifier must see a bounded loop). */
#define RG_TRIG_MAX_BATCH 1000

struct rg_trig_counter {
	__u64 value;
} __attribute__((aligned(128)));

#endif /* RG_TRIG_COMMON_H */
