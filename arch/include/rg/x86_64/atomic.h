/* SPDX-License-Identifier: MIT */
/* x86_64/atomic.h: primitives are added with issue 2. */
#ifndef RG_X86_64_ATOMIC_H
#define RG_X86_64_ATOMIC_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif
#endif /* RG_X86_64_ATOMIC_H */
