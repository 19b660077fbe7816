/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-ldadd-llsc": per-CPU LDADD entry, LDXR/STXR exit. */
#ifndef RG_GUARDS_PCPU_LDADD_LLSC_H
#define RG_GUARDS_PCPU_LDADD_LLSC_H

#include "rg/guards/pcpu_insn.h"

/*
 * INSTRUCTION ONLY (rg/guards/pcpu_insn.h).
 * Instruction: LDADD on entry; an LDXR/ADD/STXR/CBNZ loop on exit (LL/SC
 * stays in L1: the other proposed fix for the slow STADD). Needs LSE.
 */
RG_DEFINE_PCPU_INSN_GUARD(pcpu_ldadd_llsc, rg_lse_ldadd32, rg_llsc_stadd32)

#endif /* RG_GUARDS_PCPU_LDADD_LLSC_H */
