// SPDX-License-Identifier: MIT
/* x86-64 CPU identification from CPUID: vendor, family/model/stepping, brand string. */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>

#include "rg/env.h"
#include "env_arch.h"

bool rg_cpu_has_lse(void)
{
	return false;	/* an arm64 feature */
}

void rg_env_cpu_identify(struct rg_env *env)
{
	unsigned int a, b, c, d, fam, model, step;
	char vendor[13], brand[49];

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	memcpy(vendor + 0, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	snprintf(env->cpu_vendor, sizeof(env->cpu_vendor), "%s", vendor);

	if (__get_cpuid(1, &a, &b, &c, &d)) {
		/* SDM vol. 2 CPUID leaf 1 EAX: extended family/model apply as documented. */
		fam = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		step = a & 0xf;
		if (fam == 0xf)
			fam += (a >> 20) & 0xff;
		if (fam == 0x6 || fam >= 0xf)
			model |= ((a >> 16) & 0xf) << 4;
		snprintf(env->cpu_part, sizeof(env->cpu_part), "fam 0x%x model 0x%x step 0x%x",
			 fam, model, step);
	}

	if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000004) {
		unsigned int *w = (unsigned int *)brand;
		const char *s = brand;

		for (unsigned int leaf = 0; leaf < 3; leaf++)
			__get_cpuid(0x80000002 + leaf, &w[leaf * 4 + 0], &w[leaf * 4 + 1],
				    &w[leaf * 4 + 2], &w[leaf * 4 + 3]);
		brand[48] = '\0';
		while (*s == ' ')
			s++;
		if (*s) {
			snprintf(env->cpu_model, sizeof(env->cpu_model), "%s", s);
			/* trailing blanks some CPUs pad with */
			for (size_t n = strlen(env->cpu_model); n && env->cpu_model[n - 1] == ' '; n--)
				env->cpu_model[n - 1] = '\0';
		}
	}
}

void rg_env_virt_cpu(struct rg_virt_cpu *cpu)
{
	unsigned int a, b, c, d;

	cpu->x86 = true;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	cpu->hv_bit = (c >> 31) & 1;
	if (!cpu->hv_bit)
		return;
	/* The hypervisor leaf is outside __get_cpuid's range check: ask directly. */
	__cpuid(0x40000000, a, b, c, d);
	memcpy(cpu->hv_sig + 0, &b, 4);
	memcpy(cpu->hv_sig + 4, &c, 4);
	memcpy(cpu->hv_sig + 8, &d, 4);
	cpu->hv_sig[12] = '\0';
}
