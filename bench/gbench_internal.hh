// SPDX-License-Identifier: MIT
/* Shared between the C++ files of the binding: apply C options to a registered benchmark. */
#ifndef RG_GBENCH_INTERNAL_HH
#define RG_GBENCH_INTERNAL_HH

#include <benchmark/benchmark.h>
#include "rg/gbench.h"

/* false when the options are invalid (nothing applied). */
bool rg_gb_options_valid(const struct rg_gb_options *o);
void rg_gb_apply(benchmark::internal::Benchmark *b, const struct rg_gb_options *o);
void rg_gb_count_registered(void);

#endif
