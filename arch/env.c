// SPDX-License-Identifier: MIT
/* Machine description recorded in every result row: CPU identity, LSE, rseq, kernel, preemption. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rg/arch.h"
#include "rg/env.h"
#include "rg/input.h"
#include "rg/rseq.h"
#include "env_arch.h"

/* First line of a file without its newline; false when it cannot be read. */
bool rg_env_read_line(const char *path, char *buf, size_t len)
{
	char why[128];
	int fd = rg_input_open(path, len, RG_IN_PSEUDO, why, sizeof(why));
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	bool ok;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/*
 * "none", "voluntary", "full", "lazy", "rt", "dynamic(<current>)" or "unknown".
 * Order: debugfs (the live choice of a PREEMPT_DYNAMIC kernel, root only),
 * then /boot/config-<release>, then the uname -v banner.
 */
static void preempt_model(const char *release, const char *version, char *out, size_t len)
{
	char line[256], path[300];
	FILE *f;

	if (rg_env_read_line("/sys/kernel/debug/sched/preempt", line, sizeof(line))) {
		char *l = strchr(line, '('), *r = l ? strchr(l, ')') : NULL;

		if (l && r) {
			*r = '\0';
			snprintf(out, len, "dynamic(%s)", l + 1);
			return;
		}
	}
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = fopen(path, "r");
	if (f) {
		const char *model = NULL;
		bool dynamic = false;

		while (fgets(line, sizeof(line), f)) {
			if (!strcmp(line, "CONFIG_PREEMPT_RT=y\n"))
				model = "rt";
			else if (!strcmp(line, "CONFIG_PREEMPT_DYNAMIC=y\n"))
				dynamic = true;
			else if (!model && !strcmp(line, "CONFIG_PREEMPT=y\n"))
				model = "full";
			else if (!model && !strcmp(line, "CONFIG_PREEMPT_VOLUNTARY=y\n"))
				model = "voluntary";
			else if (!model && !strcmp(line, "CONFIG_PREEMPT_NONE=y\n"))
				model = "none";
		}
		fclose(f);
		if (model) {
			if (dynamic)
				snprintf(out, len, "dynamic(default %s)", model);
			else
				snprintf(out, len, "%s", model);
			return;
		}
	}
	if (strstr(version, "PREEMPT_RT"))
		snprintf(out, len, "rt");
	else if (strstr(version, "PREEMPT_DYNAMIC"))
		snprintf(out, len, "dynamic");
	else if (strstr(version, "PREEMPT "))
		snprintf(out, len, "full");
	else
		snprintf(out, len, "unknown");
}

void rg_env_collect(struct rg_env *env)
{
	struct rg_virt_cpu vc;
	struct utsname u;

	memset(env, 0, sizeof(*env));
	snprintf(env->arch, sizeof(env->arch), "%s", RG_ARCH_NAME);
	snprintf(env->host, sizeof(env->host), "unknown");
	snprintf(env->kernel, sizeof(env->kernel), "unknown");
	snprintf(env->preempt, sizeof(env->preempt), "unknown");
	snprintf(env->virt, sizeof(env->virt), "unknown");
	if (uname(&u) == 0) {
		snprintf(env->host, sizeof(env->host), "%s", u.nodename);
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
		preempt_model(u.release, u.version, env->preempt, sizeof(env->preempt));
	}
	snprintf(env->cpu_vendor, sizeof(env->cpu_vendor), "unknown");
	snprintf(env->cpu_model, sizeof(env->cpu_model), "unknown");
	snprintf(env->cpu_part, sizeof(env->cpu_part), "unknown");
	rg_env_cpu_identify(env);
	env->lse = rg_cpu_has_lse();
	env->rseq = rg_rseq_available();
	env->ncpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);

	memset(&vc, 0, sizeof(vc));
	rg_env_virt_cpu(&vc);
	rg_env_virt_decide("", &vc, env->virt, sizeof(env->virt));
}
