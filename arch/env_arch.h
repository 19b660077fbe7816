/* SPDX-License-Identifier: MIT */
/* Internal to arch/: the per-architecture half of rg_env_collect(). */
#ifndef RG_ENV_ARCH_H
#define RG_ENV_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include "rg/env.h"

/* Fill cpu_vendor, cpu_model and cpu_part (left "unknown" when not knowable). */
void rg_env_cpu_identify(struct rg_env *env);

/* What the CPU says for the virt decision (CPUID hypervisor leaf, or MIDR by mrs). */
void rg_env_virt_cpu(struct rg_virt_cpu *cpu);

/* First line of a file, newline stripped; false when unreadable. */
bool rg_env_read_line(const char *path, char *buf, size_t len);

#endif /* RG_ENV_ARCH_H */
