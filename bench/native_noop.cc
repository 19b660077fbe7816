// SPDX-License-Identifier: MIT
/* The noop guard's pair loop written the native Google Benchmark way, beside the C-binding one. */
#include <cerrno>

#include "gbench_internal.hh"
#include "native_noop.h"
#include "rg/guards/noop.h"

extern "C" int rg_native_noop_register(const char *name, const struct rg_gb_options *o,
				       rg_gb_fn prologue, rg_gb_fn epilogue, void *arg)
{
	benchmark::internal::Benchmark *b;

	if (!name || !prologue || !epilogue || !rg_gb_options_valid(o))
		return -EINVAL;
	b = benchmark::RegisterBenchmark(name, [prologue, epilogue, arg](benchmark::State &st) {
		struct rg_gb_state *cst = reinterpret_cast<struct rg_gb_state *>(&st);
		struct rg_guard g = {};

		/*
		 * After a prologue error the loop body runs zero times, but the
		 * loop still passes the library's start/stop barriers, which the
		 * other threads of a multithreaded run wait on.
		 */
		prologue(cst, arg);
		/* Exactly the body of the C loop, one enter/exit pair per iteration. */
		for (auto _ : st) {
			bool ok = rg_guard_noop_enter(&g);

			rg_guard_noop_exit(&g, ok);
		}
		epilogue(cst, arg);
	});
	if (!b)
		return -ENOMEM;
	rg_gb_apply(b, o);
	rg_gb_count_registered();
	return 0;
}
