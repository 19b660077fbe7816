/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-prfm-stadd": per-CPU LDADD entry, PRFM PSTL1STRM + STADD exit. */
#ifndef RG_GUARDS_PCPU_PRFM_STADD_H
#define RG_GUARDS_PCPU_PRFM_STADD_H

#include "rg/guards/pcpu_insn.h"

/*
 * INSTRUCTION ONLY (rg/guards/pcpu_insn.h).
 * Instruction: LDADD on entry; PRFM PSTL1STRM then STADD #-1 on exit (the
 * proposal to pull the line into L1 before the store atomic). Needs LSE.
 */
RG_DEFINE_PCPU_INSN_GUARD(pcpu_prfm_stadd, rg_lse_ldadd32, rg_lse_prfm_stadd32)

#endif /* RG_GUARDS_PCPU_PRFM_STADD_H */
