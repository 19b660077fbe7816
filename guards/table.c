// SPDX-License-Identifier: MIT
/* The guard table in markdown, generated from the registry (docs/guards.md, --list). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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
	ADD(gi->needs & RG_NEEDS_OWN_CPU, "one thread per CPU on arm64");
	ADD(gi->needs & RG_NO_PROTECTION, "no protection");
#undef ADD
	if (!buf[0])
		snprintf(buf, len, "-");
}

void rg_guard_print_table(FILE *f)
{
	fprintf(f, "| guard | arch | needs | scope | role | what it is |\n");
	fprintf(f, "|---|---|---|---|---|---|\n");
	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		char needs[96];

		needs_text(&rg_guards[i], needs, sizeof(needs));
		fprintf(f, "| `%s` | %s | %s | %s | %s | %s |\n", rg_guards[i].name,
			arch_name(rg_guards[i].arch), needs, rg_guard_scope_name(rg_guards[i].scope),
			rg_guard_role(&rg_guards[i]), rg_guards[i].summary);
	}
}

/* Text inside a markdown table cell: '|' would end the cell, so it is escaped. */
static void cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void rg_guard_print_kernel_table(FILE *f)
{
	fprintf(f, "| guard | models (kernel source: macro) | x86-64 pair loop | arm64 pair loop |\n");
	fprintf(f, "|---|---|---|---|\n");
	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		const struct rg_guard_info *gi = &rg_guards[i];
		const char *ins[2] = { gi->insns_x86_64, gi->insns_aarch64 };

		fprintf(f, "| `%s` | ", gi->name);
		cell(f, gi->models);
		fputs(" |", f);
		for (int a = 0; a < 2; a++) {
			bool code = strcmp(ins[a], "-") != 0;

			fputs(code ? " `" : " ", f);
			cell(f, ins[a]);
			fputs(code ? "` |" : " |", f);
		}
		fputc('\n', f);
	}
}

void rg_guard_print_list(FILE *f)
{
	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		const char *reason = NULL;
		bool ok = rg_guard_available(&rg_guards[i], &reason);
		char avail[160];

		snprintf(avail, sizeof(avail), ok ? "available" : "skipped (%s)", reason);
		fprintf(f, "  %-22s %-24s %-6s %-32s %s\n", rg_guards[i].name, avail,
			rg_guard_scope_name(rg_guards[i].scope), rg_guard_role(&rg_guards[i]),
			rg_guards[i].summary);
	}
}

static const struct { const char *role, *meaning; } roles[] = {
#define RG_ROLE(role, meaning) { role, meaning },
#include "rg/roles.def"
#undef RG_ROLE
};

/* Whether gi's ';'-separated role list holds role. */
static bool has_role(const struct rg_guard_info *gi, const char *role)
{
	const char *r = rg_guard_role(gi);
	size_t n = strlen(role);

	for (const char *p = r;; p++) {
		if (!strncmp(p, role, n) && (p[n] == ';' || p[n] == '\0'))
			return true;
		p = strchr(p, ';');
		if (!p)
			return false;
	}
}

int rg_guard_roles_check(FILE *err)
{
	int bad = 0;

	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		const char *p = rg_guard_role(&rg_guards[i]);

		while (*p) {
			size_t n = strcspn(p, ";");
			bool known = false;

			for (size_t k = 0; k < sizeof(roles) / sizeof(roles[0]); k++)
				known |= strlen(roles[k].role) == n && !strncmp(roles[k].role, p, n);
			if (!known) {
				fprintf(err, "guard '%s' has role '%.*s', which rg/roles.def does not list\n",
					rg_guards[i].name, (int)n, p);
				bad++;
			}
			p += n + (p[n] == ';');
		}
	}
	for (size_t k = 0; k < sizeof(roles) / sizeof(roles[0]); k++) {
		bool used = false;

		for (int i = 0; i < RG_GUARD__COUNT; i++)
			used |= has_role(&rg_guards[i], roles[k].role);
		if (!used && strcmp(roles[k].role, "n/a")) {
			fprintf(err, "rg/roles.def lists role '%s', which no guard of guards.def has\n",
				roles[k].role);
			bad++;
		}
	}
	return bad;
}

/* The guards holding role that exist on arch, as `a`, `b`; "-" for none. */
static void role_cell(FILE *f, const char *role, unsigned int arch)
{
	int n = 0;

	for (int i = 0; i < RG_GUARD__COUNT; i++)
		if ((rg_guards[i].arch & arch) && has_role(&rg_guards[i], role))
			fprintf(f, "%s`%s`", n++ ? ", " : "", rg_guards[i].name);
	if (!n)
		fputc('-', f);
}

void rg_guard_print_roles_table(FILE *f)
{
	fprintf(f, "| role | meaning | x86-64 | arm64 |\n");
	fprintf(f, "|---|---|---|---|\n");
	for (size_t k = 0; k < sizeof(roles) / sizeof(roles[0]); k++) {
		fprintf(f, "| `%s` | ", roles[k].role);
		cell(f, roles[k].meaning);
		if (!strcmp(roles[k].role, "n/a")) {
			/* Guards without a role: named in the meaning, no architecture cells. */
			int n = 0;

			for (int i = 0; i < RG_GUARD__COUNT; i++)
				if (has_role(&rg_guards[i], "n/a"))
					fprintf(f, "%s`%s`", n++ ? ", " : ": ", rg_guards[i].name);
			fputs(" | | |\n", f);
			continue;
		}
		fputs(" | ", f);
		role_cell(f, roles[k].role, RG_ON_X86_64);
		fputs(" | ", f);
		role_cell(f, roles[k].role, RG_ON_AARCH64);
		fputs(" |\n", f);
	}
}
