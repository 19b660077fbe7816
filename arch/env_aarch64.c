// SPDX-License-Identifier: MIT
/* arm64 CPU identification: MIDR_EL1 (from /sys or an emulated mrs) decoded to a core name; LSE. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "rg/env.h"
#include "rg/midr.h"
#include "env_arch.h"

#ifndef HWCAP_ATOMICS
# define HWCAP_ATOMICS	(1UL << 8)
#endif
#ifndef HWCAP_CPUID
# define HWCAP_CPUID	(1UL << 11)
#endif

bool rg_cpu_has_lse(void)
{
	return (getauxval(AT_HWCAP) & HWCAP_ATOMICS) != 0;
}

/* MIDR_EL1 of CPU 0 from sysfs, else from mrs when the kernel emulates it (HWCAP_CPUID). */
static bool read_midr(uint64_t *midr)
{
	char line[64];

	if (rg_env_read_line("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
			     line, sizeof(line))) {
		char *end;
		unsigned long long v = strtoull(line, &end, 0);

		if (end != line) {
			*midr = v;
			return true;
		}
	}
	if (getauxval(AT_HWCAP) & HWCAP_CPUID) {
		uint64_t v;

		__asm__ __volatile__("mrs %0, midr_el1" : "=r"(v));
		*midr = v;
		return true;
	}
	return false;
}

void rg_env_cpu_identify(struct rg_env *env)
{
	uint64_t midr;

	if (!read_midr(&midr))
		return;
	rg_midr_describe((uint32_t)midr, env->cpu_vendor, sizeof(env->cpu_vendor),
			 env->cpu_model, sizeof(env->cpu_model));
	snprintf(env->cpu_part, sizeof(env->cpu_part), "midr 0x%08x", (uint32_t)midr);
}

void rg_env_virt_cpu(struct rg_virt_cpu *cpu)
{
	cpu->x86 = false;
	/* mrs as the kernel (or qemu-user) emulates it, independent of sysfs. */
	if (getauxval(AT_HWCAP) & HWCAP_CPUID) {
		uint64_t v;

		__asm__ __volatile__("mrs %0, midr_el1" : "=r"(v));
		cpu->mrs_midr = (uint32_t)v;
		cpu->mrs_midr_known = true;
	}
}
