/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-ldadd": per-CPU LDADD entry, LDADD-to-unused-register exit (the instructions of arm64 6.18+). */
#ifndef RG_GUARDS_PCPU_LDADD_H
#define RG_GUARDS_PCPU_LDADD_H

#include "rg/guards/pcpu_insn.h"

/*
 * INSTRUCTION ONLY (rg/guards/pcpu_insn.h).
 * Instruction: LDADD on entry; on exit LDADD #-1 whose destination is a real
 * register that nobody reads (not XZR, which would make it STADD): the "near"
 * form adopted by kernel commit 535fdfc5a228 (6.18) for this_cpu_add/dec.
 * Role pcpu-atomic: the arm64 counterpart of x86 pcpu-lock-xadd (an atomic
 * per-CPU counter, nothing around it). Needs LSE.
 */
RG_DEFINE_PCPU_INSN_GUARD(pcpu_ldadd, rg_lse_ldadd32, rg_lse_ldadd_unused32)

#endif /* RG_GUARDS_PCPU_LDADD_H */
