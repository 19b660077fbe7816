/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-llsc-kernel": the arm64 kernel without LSE: LL/SC this_cpu ops, whole sequence. */
#ifndef RG_GUARDS_PCPU_LLSC_KERNEL_H
#define RG_GUARDS_PCPU_LLSC_KERNEL_H

#include "rg/guards/pcpu_kernel.h"

/*
 * The kernel's whole this_cpu sequence (rg/guards/pcpu_kernel.h) around:
 * Op: the LL/SC alternatives of __PERCPU_RET_OP_CASE and __PERCPU_OP_CASE
 * (LDXR/ADD/STXR/CBNZ each), what an arm64 kernel runs on a CPU without LSE.
 * No LSE needed.
 */
RG_DEFINE_PCPU_KERNEL_GUARD(pcpu_llsc_kernel, rg_kpcpu_add_return_llsc32, rg_kpcpu_add_llsc32)

#endif /* RG_GUARDS_PCPU_LLSC_KERNEL_H */
