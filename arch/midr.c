// SPDX-License-Identifier: MIT
/* MIDR_EL1 implementer/part tables (Arm TRMs; Linux arch/arm64/include/asm/cputype.h has the same ids). */
#include <stdio.h>

#include "rg/midr.h"

static const struct { uint8_t impl; const char *name; } implementers[] = {
	{ 0x41, "ARM" }, { 0x42, "Broadcom" }, { 0x43, "Cavium" }, { 0x46, "Fujitsu" },
	{ 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" }, { 0x50, "APM" }, { 0x51, "Qualcomm" },
	{ 0x61, "Apple" }, { 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
};

static const struct { uint8_t impl; uint16_t part; const char *name; } parts[] = {
	{ 0x41, 0xd03, "Cortex-A53" },  { 0x41, 0xd04, "Cortex-A35" },
	{ 0x41, 0xd05, "Cortex-A55" },  { 0x41, 0xd07, "Cortex-A57" },
	{ 0x41, 0xd08, "Cortex-A72" },  { 0x41, 0xd09, "Cortex-A73" },
	{ 0x41, 0xd0a, "Cortex-A75" },  { 0x41, 0xd0b, "Cortex-A76" },
	{ 0x41, 0xd0c, "Neoverse N1" }, { 0x41, 0xd0d, "Cortex-A77" },
	{ 0x41, 0xd40, "Neoverse V1" }, { 0x41, 0xd41, "Cortex-A78" },
	{ 0x41, 0xd44, "Cortex-X1" },   { 0x41, 0xd46, "Cortex-A510" },
	{ 0x41, 0xd47, "Cortex-A710" }, { 0x41, 0xd48, "Cortex-X2" },
	{ 0x41, 0xd49, "Neoverse N2" }, { 0x41, 0xd4f, "Neoverse V2" },
	{ 0x41, 0xd84, "Neoverse V3" }, { 0x41, 0xd8e, "Neoverse N3" },
	{ 0xc0, 0xac3, "AmpereOne" },   { 0xc0, 0xac4, "AmpereOne AC04" },
	{ 0x50, 0x000, "X-Gene" },
};

void rg_midr_describe(uint32_t midr, char *vendor, size_t vlen, char *model, size_t mlen)
{
	unsigned int impl = RG_MIDR_IMPLEMENTER(midr), part = RG_MIDR_PART(midr);
	const char *iname = NULL, *pname = NULL;

	for (size_t i = 0; i < sizeof(implementers) / sizeof(implementers[0]); i++)
		if (implementers[i].impl == impl)
			iname = implementers[i].name;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i].impl == impl && parts[i].part == part)
			pname = parts[i].name;
	if (iname)
		snprintf(vendor, vlen, "%s", iname);
	else
		snprintf(vendor, vlen, "impl 0x%02x", impl);
	if (pname)
		snprintf(model, mlen, "%s r%up%u", pname, RG_MIDR_VARIANT(midr), RG_MIDR_REVISION(midr));
	else
		snprintf(model, mlen, "impl 0x%02x part 0x%03x", impl, part);
}
