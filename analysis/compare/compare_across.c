// SPDX-License-Identifier: MIT
/* `rgbench compare --across-hosts` over any number of hosts: the role matrix, decision table and prediction of `report`, or the matrix as CSV. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/cmdline.h"
#include "rg/env.h"
#include "rg/across.h"
#include "compare.h"

bool cmp_fleet_wanted(char **paths, size_t n)
{
	struct input *in = NULL;
	struct host *hosts = NULL;
	size_t nin = 0, nh = 0;
	char err[256];
	bool more;

	if (n != 2)
		return true;
	/* two operands: the page only when they hold more than two machines */
	more = !rp_read_inputs((int)n, paths, 0, &in, &nin, err, sizeof(err)) &&
	       !rp_group_hosts(in, nin, &hosts, &nh, err, sizeof(err)) && nh > 2;
	rp_hosts_free(hosts, nh);
	rp_inputs_free(in, nin);
	return more;
}

int cmp_fleet_main(char **paths, size_t n, enum out_fmt fmt, long width, bool allow_emulated,
		   const struct rg_select *sel)
{
	struct input *in = NULL;
	struct host *hosts = NULL;
	size_t nin = 0, nh = 0;
	char err[1200] = "";
	struct ctx c = { 0 };
	int ret = RG_EXIT_FAIL;

	if (rp_read_inputs((int)n, paths, 0, &in, &nin, err, sizeof(err)) || rg_cl_signal_status())
		goto out;
	if (sel) {
		/* The matrix is costs over noop: the rows the selected ones are measured against stay. */
		struct rg_select s = *sel;
		size_t kept = 0, k;

		s.with_baselines = true;
		for (size_t i = 0; i < nin; i++) {
			k = rg_rows_select(&in[i].rows, &s, NULL);
			if (k == (size_t)-1) {
				snprintf(err, sizeof(err), "out of memory");
				goto out;
			}
			kept += k;
		}
		if (!kept) {
			ret = rg_cl_usage_error("the row selection keeps no row of the %zu file%s", nin,
						nin == 1 ? "" : "s");
			goto out;
		}
	}
	if (rp_group_hosts(in, nin, &hosts, &nh, err, sizeof(err)))
		goto out;
	for (size_t i = 0; i < nh && !allow_emulated; i++) {
		if (!hosts[i].emulated)
			continue;
		rg_cl_error("%s holds rows measured on an emulated CPU (virt: %s), whose timings are "
			    "not a machine's; --allow-emulated compares them anyway",
			    hosts[i].rows[0]->file, hosts[i].virt);
		ret = RG_EXIT_USAGE;
		goto out;
	}
	c.width = fmt == OUT_COMMIT ? COMMIT_LOG_WIDTH : (int)width;
	if (rp_page_open(&c, err, sizeof(err)))
		goto out;
	if (fmt == OUT_CSV) {
		rp_across_csv(c.f, hosts, nh, allow_emulated);
	} else {
		fprintf(c.f, "# rgbench compare --across-hosts: %zu host%s, %zu file%s\n\n", nh,
			nh == 1 ? "" : "s", nin, nin == 1 ? "" : "s");
		for (size_t i = 0; i < nh; i++)
			for (size_t k = 0; k < hosts[i].ndups; k++)
				rp_bullet(&c, "%s: %zu row(s) of %s are also in %s: those are used",
					  rp_md(hosts[i].name), hosts[i].dups[k].n,
					  rp_md(hosts[i].dups[k].dropped), rp_md(hosts[i].dups[k].kept));
		rp_sec_fleet(&c, hosts, nh, allow_emulated);
	}
	ret = rp_page_emit(&c, NULL, err, sizeof(err));
out:
	rp_hosts_free(hosts, nh);
	rp_inputs_free(in, nin);
	return rp_page_end(&c, ret, err);
}
