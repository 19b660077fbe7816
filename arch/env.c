// SPDX-License-Identifier: MIT
/* Machine description recorded in every result row. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rg/arch.h"
#include "rg/env.h"

bool rg_cpu_has_lse(void)
{
	return false;	/* aarch64 detection lands with issue 2 */
}

void rg_env_collect(struct rg_env *env)
{
	struct utsname u;

	memset(env, 0, sizeof(*env));
	snprintf(env->arch, sizeof(env->arch), "%s", RG_ARCH_NAME);
	if (uname(&u) == 0) {
		snprintf(env->host, sizeof(env->host), "%s", u.nodename);
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
	}
	snprintf(env->cpu_vendor, sizeof(env->cpu_vendor), "unknown");
	snprintf(env->cpu_model, sizeof(env->cpu_model), "unknown");
	snprintf(env->cpu_part, sizeof(env->cpu_part), "unknown");
	snprintf(env->preempt, sizeof(env->preempt), "unknown");
	env->ncpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
}
