/* SPDX-License-Identifier: MIT */
/* The cycle reference's dependent chain (refloop.c). */
#ifndef RG_BENCH_REFLOOP_H
#define RG_BENCH_REFLOOP_H

#include <stdint.h>

/* n iterations of RG_REF_ADDS_PER_ITER dependent adds to x. */
uint64_t rg_ref_chain(uint64_t n, uint64_t x);
#define RG_REF_ADDS_PER_ITER 16

#endif /* RG_BENCH_REFLOOP_H */
