/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-xadd": per-CPU xadd/dec without lock: the x86 kernel's this_cpu ops, exactly. */
#ifndef RG_GUARDS_PCPU_XADD_H
#define RG_GUARDS_PCPU_XADD_H

#include "rg/guards/pcpu_insn.h"

/*
 * enter: return this_cpu_inc_return(*active) == 1   exit: this_cpu_dec(*active)
 * Instruction: `mov off(g), %r` then `xadd %r2, %gs:(%r)` on entry and
 * `decl %gs:(%r)` on exit, no lock: what the x86 kernel runs for
 * this_cpu_inc_return()/this_cpu_dec() (arch/x86/include/asm/percpu.h,
 * percpu_add_return_op with its "memory" clobber / percpu_unary_op without
 * one, as rg_gs_xadd32/rg_gs_dec32), one load of prog->active and one
 * %gs-relative instruction each. x86 needs no preempt_disable() around
 * them (one instruction cannot be split by an interrupt or preemption), so
 * this IS the kernel's whole this_cpu sequence, before and after 6.18: x86
 * has no separate -kernel row. Not atomic against another CPU, which
 * pinning rules out.
 * Parts (guards.def): the load of prog->active, the xadd, the dec and the
 * test (RG_DEFINE_GS_GUARD_PARTS).
 * Contract: per-CPU (rg/guard.h).
 */
RG_DEFINE_GS_GUARD_PARTS(pcpu_xadd, rg_gs_xadd32, rg_gs_dec32)

#endif /* RG_GUARDS_PCPU_XADD_H */
