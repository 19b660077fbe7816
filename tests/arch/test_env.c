// SPDX-License-Identifier: MIT
/* Machine description: fields filled and consistent with the system; MIDR decoding table. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rg/arch.h"
#include "rg/env.h"
#include "rg/midr.h"
#include "rg/rseq.h"
#include "check.h"

static void midr(uint32_t m, const char *vendor, const char *model)
{
	char v[64], p[128];

	rg_midr_describe(m, v, sizeof(v), p, sizeof(p));
	CHECK(!strcmp(v, vendor), "midr 0x%08x: vendor '%s', expected '%s'", m, v, vendor);
	CHECK(!strcmp(p, model), "midr 0x%08x: model '%s', expected '%s'", m, p, model);
}

int main(void)
{
	struct rg_env env;
	struct utsname u;
	int expect_lse = rg_test_env_int("RG_EXPECT_LSE");
	const char *preempts[] = { "none", "voluntary", "full", "lazy", "rt", "dynamic", "unknown" };
	bool preempt_ok = false;

	/* MIDR values as the parts report them (variant/revision in the low/high nibbles) */
	midr(0x410fd0c1, "ARM", "Neoverse N1 r0p1");
	midr(0x410fd490, "ARM", "Neoverse N2 r0p0");
	midr(0x411fd401, "ARM", "Neoverse V1 r1p1");
	midr(0x410fd4f0, "ARM", "Neoverse V2 r0p0");
	midr(0x410fd840, "ARM", "Neoverse V3 r0p0");
	midr(0x410fd034, "ARM", "Cortex-A53 r0p4");
	midr(0x411fd070, "ARM", "Cortex-A57 r1p0");
	midr(0x410fd083, "ARM", "Cortex-A72 r0p3");
	midr(0x414fd0b1, "ARM", "Cortex-A76 r4p1");
	midr(0x411fd440, "ARM", "Cortex-X1 r1p0");
	midr(0xc00fac30, "Ampere", "AmpereOne r0p0");
	midr(0xc00fac41, "Ampere", "AmpereOne AC04 r0p1");
	midr(0x00000000, "impl 0x00", "impl 0x00 part 0x000");
	midr(0x5a0fabc0, "impl 0x5a", "impl 0x5a part 0xabc");
	midr(0x410f1230, "ARM", "impl 0x41 part 0x123");

	rg_env_collect(&env);
	printf("arch %s | vendor %s | model %s | part %s | kernel %s | preempt %s | lse %d | rseq %d | cpus %d\n",
	       env.arch, env.cpu_vendor, env.cpu_model, env.cpu_part, env.kernel, env.preempt,
	       env.lse, env.rseq, env.ncpus_online);
	CHECK(!strcmp(env.arch, RG_ARCH_NAME), "arch %s", env.arch);
	CHECK(uname(&u) == 0 && !strcmp(env.kernel, u.release), "kernel %s", env.kernel);
	CHECK(env.ncpus_online == (int)sysconf(_SC_NPROCESSORS_ONLN), "ncpus %d", env.ncpus_online);
	CHECK(env.rseq == rg_rseq_available(), "rseq %d", env.rseq);
	CHECK(env.lse == rg_cpu_has_lse(), "lse %d", env.lse);
	for (size_t i = 0; i < sizeof(preempts) / sizeof(preempts[0]); i++)
		preempt_ok |= !strncmp(env.preempt, preempts[i], strlen(preempts[i]));
	CHECK(preempt_ok, "preempt '%s' is not one of the documented values", env.preempt);
#if RG_ARCH_X86_64
	CHECK(!env.lse, "LSE on x86");
	CHECK(strcmp(env.cpu_vendor, "unknown") && strlen(env.cpu_vendor) == 12, "CPUID vendor '%s'",
	      env.cpu_vendor);
	CHECK(!strncmp(env.cpu_part, "fam 0x", 6), "part '%s'", env.cpu_part);
	CHECK(strcmp(env.cpu_model, "unknown"), "brand string missing");
#else
	if (expect_lse >= 0)
		CHECK(env.lse == (expect_lse == 1), "lse %d with RG_EXPECT_LSE=%d", env.lse, expect_lse);
	/* Linux (and qemu-user) emulate mrs MIDR_EL1 for userspace, so the part is always known */
	CHECK(!strncmp(env.cpu_part, "midr 0x", 7) && strlen(env.cpu_part) == 15, "part '%s'", env.cpu_part);
	{
		char v[64], p[128];
		uint32_t m = (uint32_t)strtoul(env.cpu_part + 5, NULL, 16);

		rg_midr_describe(m, v, sizeof(v), p, sizeof(p));
		CHECK(!strcmp(v, env.cpu_vendor) && !strcmp(p, env.cpu_model), "decode mismatch");
		if (getenv("QEMU_CPU") && !strcmp(getenv("QEMU_CPU"), "cortex-a72"))
			CHECK(!strncmp(env.cpu_model, "Cortex-A72", 10), "qemu cortex-a72 reads as '%s'",
			      env.cpu_model);
	}
#endif
	(void)expect_lse;
	return rg_test_done("test_env");
}
