// SPDX-License-Identifier: MIT
/* Finds glibc's rseq registration for the calling thread; says why when there is none. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <sys/rseq.h>

#include "rg/rseq.h"

__thread uint32_t rg_rctx_level;

void *rg_rseq_area(void)
{
	if (__rseq_size < 8)	/* 0: glibc did not register (or was told not to) */
		return NULL;
	return rg_rseq_area_fast();
}

const char *rg_rseq_why(void)
{
	const char *rs = rg_rseq_area();
	int32_t cpu;

	if (!rs)
		return "rseq not registered";
	cpu = *(const volatile int32_t *)(rs + RG_RSEQ_OFF_CPU_ID);
	if (cpu < 0)		/* -1 uninitialised, -2 registration failed */
		return "rseq not registered";
	return NULL;
}

bool rg_rseq_available(void)
{
	return rg_rseq_why() == NULL;
}
