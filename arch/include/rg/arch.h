/* SPDX-License-Identifier: MIT */
/* Picks the architecture's primitive headers; include this, never them directly. */
#ifndef RG_ARCH_H
#define RG_ARCH_H

#include <stdint.h>
#include "rg/compiler.h"

#define RG_ARCH_H_INSIDE 1
#if defined(__x86_64__)
# define RG_ARCH_X86_64	1
# define RG_ARCH_AARCH64	0
# define RG_ARCH_NAME	"x86_64"
/* RG_FOR_WIDTHS(m): m(bits, type, operand size suffix) per width the primitives come in */
# define RG_FOR_WIDTHS(m)	m(32, uint32_t, "l") m(64, uint64_t, "q")
# include "rg/x86_64/atomic.h"
# include "rg/x86_64/percpu_ops.h"
#elif defined(__aarch64__)
# define RG_ARCH_X86_64	0
# define RG_ARCH_AARCH64	1
# define RG_ARCH_NAME	"aarch64"
/* RG_FOR_WIDTHS(m): m(bits, type, register prefix) per width the primitives come in */
# define RG_FOR_WIDTHS(m)	m(32, uint32_t, "w") m(64, uint64_t, "x")
# include "rg/aarch64/atomic_lse.h"
# include "rg/aarch64/atomic_llsc.h"
# include "rg/aarch64/percpu_ops.h"
#else
# error "rgbench supports x86_64 and aarch64 only"
#endif
#include "rg/plain.h"	/* both architectures, one file */
#undef RG_FOR_WIDTHS
#undef RG_ARCH_H_INSIDE

#endif /* RG_ARCH_H */
