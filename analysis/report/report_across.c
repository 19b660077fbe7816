// SPDX-License-Identifier: MIT
/* `rgbench report --across-hosts`: two machines side by side, guards paired by role. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

void rp_sec_across(struct ctx *c, const struct host *A, const struct host *B)
{
	struct rg_table t;
	char ha[64], hb[64], roles[64][48];
	size_t nroles = 0, paired = 0, stood = 0;
	char onlya[512] = "", onlyb[512] = "";

	rp_heading(c, "Side by side by role: %s vs %s", A->name, B->name);
	/* Every role either side has, the known ones in their order first. */
	for (size_t i = 0; rp_role_order[i]; i++)
		if (strcmp(rp_role_order[i], "n/a"))
			snprintf(roles[nroles++], sizeof(roles[0]), "%s", rp_role_order[i]);
	for (int s = 0; s < 2; s++) {
		const struct host *h = s ? B : A;

		for (size_t i = 0; i < h->n; i++) {
			const char *list = rg_row_role(h->rows[i], NULL);

			for (const char *p = list; rp_is_pair1(h->rows[i]) && p && *p; ) {
				const char *e = strchr(p, ';');
				char one[48];
				bool seen = false;

				snprintf(one, sizeof(one), "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
				for (size_t k = 0; k < nroles; k++)
					seen |= !strcmp(roles[k], one);
				if (!seen && nroles < 64)
					snprintf(roles[nroles++], sizeof(roles[0]), "%s", one);
				p = e ? e + 1 : NULL;
			}
		}
	}
	snprintf(ha, sizeof(ha), "%s (%s)", A->name, A->arch);
	snprintf(hb, sizeof(hb), "%s (%s)", B->name, B->arch);
	rg_table_init(&t, 6);
	{
		const char *hdr[] = { "role", "A guard", "A ns", "B guard", "B ns", "A/B" };

		rg_table_add(&t, hdr);
	}
	t.right[2] = t.right[4] = t.right[5] = true;
	for (size_t k = 0; k < nroles; k++) {
		const struct rg_row *a = rp_by_role(A, roles[k]), *b = rp_by_role(B, roles[k]);
		struct cost ka, kb;
		char va[24], vb[24], x[24];
		size_t l;

		if (!a && !b)
			continue;
		if (!a || !b) {
			char *dst = a ? onlya : onlyb;

			l = strlen(dst);
			snprintf(dst + l, 512 - l, "%s%s (%s)", l ? ", " : "", roles[k],
				 rg_row_s(a ? a : b, RG_COL_guard));
			continue;
		}
		ka = rp_cost_of(A, a);
		kb = rp_cost_of(B, b);
		rp_fmt_signed(va, sizeof(va), ka.v);
		rp_fmt_signed(vb, sizeof(vb), kb.v);
		if (!isnan(rp_cmp_value(&ka)) && !isnan(rp_cmp_value(&kb)))
			rp_fmt_ratio(x, sizeof(x), ka.v, kb.v);
		else
			snprintf(x, sizeof(x), "n/a");
		const char *row[] = { roles[k], rg_row_s(a, RG_COL_guard), va, rg_row_s(b, RG_COL_guard), vb, x };
		rg_table_add(&t, row);
		paired++;
		stood += strcmp(rg_row_s(a, RG_COL_guard), rg_row_s(b, RG_COL_guard)) != 0;
	}
	rp_para(c, "A = %s, B = %s. ns per pair over noop (one pinned thread), rows paired by the role column (guards.def).",
	     rp_md(ha), rp_md(hb));
	if (!paired) {
		rg_table_free(&t);
		rp_left_out(c, "side by side", "no role has an ok pair row on both %s and %s", rp_md(A->name),
			    rp_md(B->name));
		return;
	}
	rp_table_out(c, &t);
	rg_table_free(&t);
	if (stood)
		rp_para(c, "%zu role%s paired guards of different names: the guard named on each side stood in for that role on its machine (a guard listed under several roles stands in for each).",
		     stood, stood == 1 ? "" : "s");
	if (onlya[0])
		rp_para(c, "Only on A: %s.", rp_md(onlya));
	if (onlyb[0])
		rp_para(c, "Only on B: %s.", rp_md(onlyb));
	if (A->legacy_roles || B->legacy_roles)
		rp_para(c, "Some rows had no role column (older files): their roles come from the built-in table of the guard names those files used.");
}
