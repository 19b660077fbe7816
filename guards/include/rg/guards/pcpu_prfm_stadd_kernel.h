/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-prfm-stadd-kernel": the prefetch-for-store proposal inside the kernel's whole this_cpu sequence. */
#ifndef RG_GUARDS_PCPU_PRFM_STADD_KERNEL_H
#define RG_GUARDS_PCPU_PRFM_STADD_KERNEL_H

#include "rg/guards/pcpu_kernel.h"

/*
 * The kernel's whole this_cpu sequence (rg/guards/pcpu_kernel.h) around:
 * Op: entry LDADD + ADD + NOP + NOP, exit PRFM PSTL1STRM + STADD + NOP x2
 * (the proposed this_cpu_add(); not merged: modelled in the same
 * 4-instruction alternative slot).
 * Needs LSE.
 */
RG_DEFINE_PCPU_KERNEL_GUARD(pcpu_prfm_stadd_kernel, rg_kpcpu_add_return_lse32, rg_kpcpu_add_prfm_stadd32)

#endif /* RG_GUARDS_PCPU_PRFM_STADD_KERNEL_H */
