/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-stadd-kernel": __bpf_prog_enter_recur()/exit on arm64 before 6.18, whole sequence. */
#ifndef RG_GUARDS_PCPU_STADD_KERNEL_H
#define RG_GUARDS_PCPU_STADD_KERNEL_H

#include "rg/guards/pcpu_kernel.h"

/*
 * The kernel's whole this_cpu sequence (rg/guards/pcpu_kernel.h) around:
 * Op: entry LDADD + ADD + NOP + NOP, exit STADD + NOP x3 (this_cpu_dec()
 * before commit 535fdfc5a228).
 * Needs LSE.
 */
RG_DEFINE_PCPU_KERNEL_GUARD(pcpu_stadd_kernel, rg_kpcpu_add_return_lse32, rg_kpcpu_add_stadd32)

#endif /* RG_GUARDS_PCPU_STADD_KERNEL_H */
