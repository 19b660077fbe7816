/* SPDX-License-Identifier: MIT */
/* aarch64/plain.h: primitives are added with issue 2. */
#ifndef RG_AARCH64_PLAIN_H
#define RG_AARCH64_PLAIN_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif
#endif /* RG_AARCH64_PLAIN_H */
