/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The add-a-guard test's module form of throwaway (tests/guards/addguard):
 * included at the end of kernel/kmod/module/guards.h in a test build. A
 * per-CPU depth under preempt_disable(): granted at depth 1, refused nested.
 */
static DEFINE_PER_CPU(int, rg_throwaway);

static __always_inline bool g_throwaway_enter(void)
{
	preempt_disable();
	return __this_cpu_inc_return(rg_throwaway) == 1;
}
static __always_inline void g_throwaway_exit(bool ok)
{
	__this_cpu_dec(rg_throwaway);
	preempt_enable();
}

/*
 * Its ladder's steps before the whole (kernel/kmod/module/ladder.h; the last,
 * not-neg, is g_throwaway_enter/_exit): load-store, the depth read and
 * written back under preempt_disable().
 */
static __always_inline bool l_throwaway_enter_upto(int k)
{
	preempt_disable();
	__this_cpu_write(rg_throwaway, __this_cpu_read(rg_throwaway));
	preempt_enable();
	return true;
}
static __always_inline void l_throwaway_exit_upto(bool ok, int k)
{
	preempt_disable();
	__this_cpu_write(rg_throwaway, __this_cpu_read(rg_throwaway));
	preempt_enable();
}
