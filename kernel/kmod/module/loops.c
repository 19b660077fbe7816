// SPDX-License-Identifier: GPL-2.0
/*
 * The timed loops, instantiated once per guard of rg_kguards.h (generated
 * from guards.def and kmod.def), so that each contains its guard's
 * instructions and nothing called through a pointer; the guard table; the
 * cycle reference.
 */
#include "kmod.h"
#include "guards.h"
#include "rg_kguards.h"
#include "tramp.h"
#include "ladder.h"

const char *const rg_kind_name[] = { "refuse", "grant", "defer" };

/* One unit of duty work: a multiply-add on a loop-carried value (rg_work_chain() of rg/loops.h). */
static __always_inline u64 rg_work(u64 x, u32 units)
{
	u32 i;

	for (i = 0; i < units; i++) {
		asm volatile("" : "+r" (x));
		x = x * 0x9e3779b97f4a7c15ull + 1;
	}
	return x;
}

/*
 * The timed loops, one instance per guard, the user suite's shapes:
 *   pair: n enter/exit pairs back to back; returns refused enters.
 *   duty: a traced call through a trampoline, as the user suite's
 *         rg_loop_duty_*: ok = enter(); if (ok) in units; exit(ok); out
 *         units. The units are one chain x carried from call to call (and
 *         from run to run through *carry) that the guard neither feeds nor
 *         reads: ok only steers a predicted branch.
 */
#define RG_LOOP(id, name, role, kind, avail)				\
static noinline u64 rg_pair_##id(u64 n)					\
{									\
	u64 i, refused = 0;						\
									\
	for (i = 0; i < n; i++) {					\
		bool ok = g_##id##_enter();				\
									\
		refused += !ok;						\
		g_##id##_exit(ok);					\
	}								\
	return refused;							\
}									\
static noinline u64 rg_duty_##id(u64 n, u32 in, u32 out, u64 *carry) \
{									\
	u64 i, refused = 0, x = *carry;					\
									\
	for (i = 0; i < n; i++) {					\
		bool ok = g_##id##_enter();				\
									\
		if (likely(ok))						\
			x = rg_work(x, in);				\
		else							\
			refused++;					\
		g_##id##_exit(ok);					\
		x = rg_work(x, out);					\
	}								\
	*carry = x;							\
	return refused;							\
}									\
static bool rg_enter_##id(void) { return g_##id##_enter(); }		\
static void rg_exit_##id(bool ok) { g_##id##_exit(ok); }
RG_KGUARDS(RG_LOOP)

#define RG_ENTRY(id, nm, rl, kd, av)					\
	{ .name = nm, .role = rl, .pair = rg_pair_##id, .duty = rg_duty_##id, \
	  .enter = rg_enter_##id, .exit = rg_exit_##id, .kind = kd,	\
	  .unavailable = av },
const struct rg_kguard rg_kguards[] = { RG_KGUARDS(RG_ENTRY) };
const unsigned int rg_nguards = ARRAY_SIZE(rg_kguards);

#define RG_OTHER(nm) nm,
const char *const rg_other_arch[] = { RG_KGUARDS_OTHER(RG_OTHER) };
const unsigned int rg_nother_arch = ARRAY_SIZE(rg_other_arch);

/*
 * The cycle reference (the user suite's bench/refloop.c): n iterations of 16
 * dependent adds of a register holding 1 to another, one cycle each, so its ns
 * per add per round shows how fast the core ran in that round. No call inside.
 * A register, not an immediate: Intel's cores since Golden Cove run a chain of
 * add $1 in the renamer at about five per cycle (docs/bench.md).
 *   x86-64: add %one, %reg (x16); dec; jnz     arm64: add x, x, one (x16); subs; b.ne
 */
static noinline u64 rg_ref_pair(u64 n)
{
	static volatile u64 one_src = 1;
	u64 x = 0, one = one_src;

	if (!n)
		return 0;
#ifdef CONFIG_X86
	asm volatile("1:\n\t.rept 16\n\tadd %2, %0\n\t.endr\n\tdec %1\n\tjnz 1b"
		     : "+r" (x), "+r" (n) : "r" (one) : "cc");
#else
	asm volatile("1:\n\t.rept 16\n\tadd %0, %0, %2\n\t.endr\n\tsubs %1, %1, #1\n\tb.ne 1b"
		     : "+r" (x), "+r" (n) : "r" (one) : "cc");
#endif
	return x & 0;	/* refused: none */
}
static u64 rg_ref_duty(u64 n, u32 in, u32 out, u64 *carry) { return rg_ref_pair(n); }
const struct rg_kguard rg_ref_kguard = {
	.name = "cycle-ref", .role = "n/a", .pair = rg_ref_pair, .duty = rg_ref_duty,
};

bool rg_guards_idle(int cpu)
{
	unsigned int i;

	for (i = 0; i < RG_S__COUNT; i++)
		if (local_read(&per_cpu_ptr(&rg_s[i], cpu)->l))	/* covers v/u/active[] */
			return false;
	return !atomic_read(&rg_shared);
}

/*
 * The tramp scenario (tramp.h): per design of RG_KTRAMP, the fentry shape
 * and the raw_tp shape (each with re-entry), then the program's call alone.
 */
static struct {
	struct bpf_tramp_run_ctx run_ctx;
	u64 start;
} rg_tre[4];	/* the re-entry tests' invocation per context level (one CPU) */
RG_KTRAMP(RG_TRAMP)
RG_KTRAMP(RG_TRAMP_RE_RAWTP)
#define RG_TRAMP_FENTRY(id, nm, rl, kd, av)				\
	{ .name = nm, .role = rl, .pair = rg_tramp_fentry_##id, .enter = rg_tre_enter_##id, \
	  .exit = rg_tre_exit_##id, .kind = kd, .unavailable = av,	\
	  .scenario = "tramp-fentry", .prog = true },
#define RG_TRAMP_RAWTP(id, nm, rl, kd, av)				\
	{ .name = nm, .role = rl, .pair = rg_tramp_rawtp_##id, .enter = rg_trere_enter_##id, \
	  .exit = rg_trere_exit_##id, .kind = kd, .unavailable = av,	\
	  .scenario = "tramp-rawtp", .prog = true },
const struct rg_kguard rg_ktramp[] = {
	RG_KTRAMP(RG_TRAMP_FENTRY)
	RG_KTRAMP(RG_TRAMP_RAWTP)
	{ .name = "prog-call", .role = "n/a", .pair = rg_tramp_call, .kind = RG_COUNTER,
	  .scenario = "tramp-call", .prog = true },
};
const unsigned int rg_nktramp = ARRAY_SIZE(rg_ktramp);
