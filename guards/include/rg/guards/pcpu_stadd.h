/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-stadd": per-CPU LDADD entry, STADD exit (the instructions of arm64 before 6.18). */
#ifndef RG_GUARDS_PCPU_STADD_H
#define RG_GUARDS_PCPU_STADD_H

#include "rg/guards/pcpu_insn.h"

/*
 * INSTRUCTION ONLY (rg/guards/pcpu_insn.h).
 * Instruction: LDADD (relaxed, result used) on entry; STADD #-1 on exit: the
 * no-return store atomic that Neoverse cores tend to execute "far", in the
 * interconnect. Needs LSE.
 */
RG_DEFINE_PCPU_INSN_GUARD(pcpu_stadd, rg_lse_ldadd32, rg_lse_stadd32)

#endif /* RG_GUARDS_PCPU_STADD_H */
