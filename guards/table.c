// SPDX-License-Identifier: MIT
/* The guard table in markdown, generated from the registry (README section, --list). */
#include <stdio.h>

#include "rg/registry.h"

static const char *arch_name(unsigned int arch)
{
	switch (arch) {
	case RG_ON_X86_64:	return "x86-64";
	case RG_ON_AARCH64:	return "arm64";
	default:		return "any";
	}
}

static void needs_text(const struct rg_guard_info *gi, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
#define ADD(cond, text)								\
	do {									\
		if ((cond) && n < len)						\
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", text); \
	} while (0)
	ADD((gi->needs & RG_NEEDS_LSE) && gi->arch == RG_ON_AARCH64, "LSE");
	ADD((gi->needs & RG_NEEDS_LSE) && gi->arch != RG_ON_AARCH64, "LSE on arm64");
	ADD(gi->needs & RG_NEEDS_RSEQ, "rseq");
	ADD(gi->needs & RG_NEEDS_PIN, "pinning");
	ADD(gi->needs & RG_NO_PROTECTION, "no protection");
#undef ADD
	if (!buf[0])
		snprintf(buf, len, "-");
}

void rg_guard_print_table(FILE *f)
{
	fprintf(f, "| guard | arch | needs | what it is |\n");
	fprintf(f, "|---|---|---|---|\n");
	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		char needs[96];

		needs_text(&rg_guards[i], needs, sizeof(needs));
		fprintf(f, "| `%s` | %s | %s | %s |\n", rg_guards[i].name,
			arch_name(rg_guards[i].arch), needs, rg_guards[i].summary);
	}
}
