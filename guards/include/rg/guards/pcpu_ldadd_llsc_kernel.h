/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-ldadd-llsc-kernel": LSE entry, LL/SC exit, inside the kernel's whole this_cpu sequence. */
#ifndef RG_GUARDS_PCPU_LDADD_LLSC_KERNEL_H
#define RG_GUARDS_PCPU_LDADD_LLSC_KERNEL_H

#include "rg/guards/pcpu_kernel.h"

/*
 * The kernel's whole this_cpu sequence (rg/guards/pcpu_kernel.h) around:
 * Op: entry LDADD + ADD + NOP + NOP, exit the LL/SC this_cpu_add() loop
 * (LDXR/ADD/STXR/CBNZ): the "keep the exit in L1" proposal.
 * Needs LSE.
 */
RG_DEFINE_PCPU_KERNEL_GUARD(pcpu_ldadd_llsc_kernel, rg_kpcpu_add_return_lse32, rg_kpcpu_add_llsc32)

#endif /* RG_GUARDS_PCPU_LDADD_LLSC_KERNEL_H */
