/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-llsc": per-CPU LDXR/STXR entry and exit, no LSE needed. */
#ifndef RG_GUARDS_PCPU_LLSC_H
#define RG_GUARDS_PCPU_LLSC_H

#include "rg/guards/pcpu_insn.h"

/*
 * INSTRUCTION ONLY (rg/guards/pcpu_insn.h).
 * Instruction: LDXR/ADD/STXR/CBNZ loops on entry (result used) and exit: the
 * instructions an armv8.0 kernel without LSE runs.
 */
RG_DEFINE_PCPU_INSN_GUARD(pcpu_llsc, rg_llsc_ldadd32, rg_llsc_stadd32)

#endif /* RG_GUARDS_PCPU_LLSC_H */
