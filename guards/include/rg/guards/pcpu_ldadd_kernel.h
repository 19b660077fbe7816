/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-ldadd-kernel": __bpf_prog_enter_recur()/exit on arm64 6.18+, whole sequence. */
#ifndef RG_GUARDS_PCPU_LDADD_KERNEL_H
#define RG_GUARDS_PCPU_LDADD_KERNEL_H

#include "rg/guards/pcpu_kernel.h"

/*
 * The kernel's whole this_cpu sequence (rg/guards/pcpu_kernel.h) around:
 * Op: entry LDADD + ADD + NOP + NOP, exit LDADD into an unused register +
 * NOP x3 (this_cpu_dec() since 6.18, commit 535fdfc5a228).
 * Needs LSE.
 */
RG_DEFINE_PCPU_KERNEL_GUARD(pcpu_ldadd_kernel, rg_kpcpu_add_return_lse32, rg_kpcpu_add_ldadd32)

#endif /* RG_GUARDS_PCPU_LDADD_KERNEL_H */
