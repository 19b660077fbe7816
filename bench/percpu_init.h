/* SPDX-License-Identifier: MIT */
/* Per-thread set-up for per-CPU guards after pinning (a no-op until core provides rg_percpu_thread_init). */
#ifndef RG_BENCH_PERCPU_INIT_H
#define RG_BENCH_PERCPU_INIT_H

static inline void rg_percpu_thread_init(void)
{
}

#endif
