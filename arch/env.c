// SPDX-License-Identifier: MIT
/* Machine description recorded in every result row: CPU identity, LSE, rseq, kernel, preemption. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
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

#if RG_ENV_OVERRIDE
/*
 * Test builds only (BUILD_TESTING, the default of a source build; a package is built without):
 * $RG_ENV_FILE names a file of "key=value" lines that replace what was read off the machine,
 * so that a test's expected output never carries the machine that ran it. Keys are the
 * schema's column names: host cpu_vendor cpu_model cpu_part kernel virt preempt lse rseq
 * ncpus_online ("arch" is what was compiled and cannot be replaced). A line that is not
 * one of these is refused on stderr and skipped; rg_env_collect() still never fails.
 */
static void env_override(struct rg_env *env)
{
	const char *path = getenv("RG_ENV_FILE");
	struct { const char *key; char *dst; size_t len; } str[] = {
		{ "host", env->host, sizeof(env->host) },
		{ "cpu_vendor", env->cpu_vendor, sizeof(env->cpu_vendor) },
		{ "cpu_model", env->cpu_model, sizeof(env->cpu_model) },
		{ "cpu_part", env->cpu_part, sizeof(env->cpu_part) },
		{ "kernel", env->kernel, sizeof(env->kernel) },
		{ "virt", env->virt, sizeof(env->virt) },
		{ "preempt", env->preempt, sizeof(env->preempt) },
	};
	char *buf, *line, *save = NULL, why[160];
	size_t len;

	if (!path || !*path)
		return;
	if (rg_input_read(path, 1u << 16, 0, &buf, &len, why, sizeof(why))) {
		fprintf(stderr, "rgbench: RG_ENV_FILE: %s\n", why);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		bool done = false;

		if (line[0] == '#')
			continue;
		if (eq) {
			*eq = '\0';
			for (size_t i = 0; i < sizeof(str) / sizeof(str[0]) && !done; i++)
				if (!strcmp(line, str[i].key)) {
					snprintf(str[i].dst, str[i].len, "%s", eq + 1);
					done = true;
				}
			if (!strcmp(line, "lse") || !strcmp(line, "rseq")) {
				*(line[0] == 'l' ? &env->lse : &env->rseq) = !strcmp(eq + 1, "1");
				done = true;
			} else if (!strcmp(line, "ncpus_online")) {
				env->ncpus_online = atoi(eq + 1);
				done = true;
			}
		}
		if (!done)
			fprintf(stderr, "rgbench: RG_ENV_FILE: not a replaceable field: %.40s\n", line);
	}
	free(buf);
}
#endif

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
#if RG_ENV_OVERRIDE
	env_override(env);
#endif
}
