/* SPDX-License-Identifier: MIT */
/* Decoding an arm64 MIDR_EL1 value to implementer and core names (portable, testable anywhere). */
#ifndef RG_MIDR_H
#define RG_MIDR_H

#include <stddef.h>
#include <stdint.h>

#define RG_MIDR_IMPLEMENTER(m)	(((m) >> 24) & 0xffu)
#define RG_MIDR_VARIANT(m)	(((m) >> 20) & 0xfu)
#define RG_MIDR_PART(m)		(((m) >> 4) & 0xfffu)
#define RG_MIDR_REVISION(m)	((m) & 0xfu)

/*
 * vendor <- implementer name ("ARM", "Ampere", ...) or "impl 0x.."; model <-
 * core name with variant/revision ("Neoverse V2 r0p1") or "part 0x...".
 */
void rg_midr_describe(uint32_t midr, char *vendor, size_t vlen, char *model, size_t mlen);

#endif /* RG_MIDR_H */
