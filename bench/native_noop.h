/* SPDX-License-Identifier: MIT */
/* The noop loop written natively in C++ (`for (auto _ : state)`), to check the C binding's overhead. */
#ifndef RG_BENCH_NATIVE_NOOP_H
#define RG_BENCH_NATIVE_NOOP_H

#include "rg/gbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Register `name`: prologue(st, arg) runs first in each thread (pinning,
 * counters; it may call rg_gb_skip_with_error), then the native loop, then
 * epilogue(st, arg). 0 or -errno.
 */
int rg_native_noop_register(const char *name, const struct rg_gb_options *o,
			    rg_gb_fn prologue, rg_gb_fn epilogue, void *arg);

#ifdef __cplusplus
}
#endif
#endif /* RG_BENCH_NATIVE_NOOP_H */
