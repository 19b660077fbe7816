/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-lock-xadd": per-CPU lock xadd entry, lock dec exit. */
#ifndef RG_GUARDS_PCPU_LOCK_XADD_H
#define RG_GUARDS_PCPU_LOCK_XADD_H

#include "rg/guards/pcpu_insn.h"

/*
 * enter: return atomic_inc_return(this CPU's slot) == 1    exit: atomic_dec(slot)
 * Instruction: `lock xadd %r, %gs:(off)` on entry, `lock decl %gs:(off)` on
 * exit, the slot found like pcpu-xadd's (one load of g->off, %gs-relative):
 * the x86 cost of making a per-CPU counter atomic. Compare with
 * ref-lock-xadd (the same two instructions on a fixed address): the two
 * should cost the same, the address chain being one load.
 * Contract: per-CPU (rg/guard.h).
 */
RG_DEFINE_GS_GUARD(pcpu_lock_xadd, rg_gs_lock_xadd32, rg_gs_lock_dec32)

#endif /* RG_GUARDS_PCPU_LOCK_XADD_H */
