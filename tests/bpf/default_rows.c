// SPDX-License-Identifier: MIT
/* rg_bpf_run_default() (what the default suite calls as root) appends one row per variant and mode. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rg/env.h"
#include "rg/result.h"
#include "rg/subcmd.h"

int main(void)
{
	static const char *const want[][2] = {
		{ "base", "syscall" }, { "tp", "syscall" }, { "raw_tp", "syscall" },
		{ "fentry", "syscall" }, { "kprobe", "syscall" },
		{ "driver-empty", "driver" }, { "driver-count", "driver" }, { "fentry", "driver" },
		{ "raw_tp", "driver" }, { "fexit", "recurse" }, { "raw_tp", "recurse" },
	};
	struct rg_resultset rs;
	struct rg_env env;
	int rc, bad = 0, ok = 0;

	if (geteuid() != 0) {
		printf("SKIP: needs root\n");
		return 77;
	}
	if (syscall(__NR_bpf, -1, NULL, 0) < 0 && errno == ENOSYS) {
		printf("SKIP: the bpf() system call is not implemented here (ENOSYS: user-mode emulation?)\n");
		return 77;
	}
	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	rc = rg_bpf_run_default(&rs, 1);
	if (rc) {
		printf("FAIL: rg_bpf_run_default returned %d\n", rc);
		bad++;
	}
	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		int n = 0;

		for (size_t i = 0; i < rs.n; i++)
			n += !strcmp(rs.rows[i].guard, want[w][0]) && !strcmp(rs.rows[i].scenario, want[w][1]);
		if (n != 1) {
			printf("FAIL: %d rows for %s/%s, want 1\n", n, want[w][0], want[w][1]);
			bad++;
		}
	}
	for (size_t i = 0; i < rs.n; i++) {
		struct rg_result *r = &rs.rows[i];

		if (strcmp(r->suite, "bpf") ||
		    (strcmp(r->status, "ok") && strcmp(r->status, "skipped"))) {
			printf("FAIL: row %zu: suite %s status %s\n", i, r->suite, r->status);
			bad++;
		}
		if (!strcmp(r->status, "skipped") && r->reason[0] != 'E') {
			printf("FAIL: %s/%s skipped without an errno: %s\n", r->guard, r->scenario, r->reason);
			bad++;
		}
		if (!strcmp(r->status, "ok")) {
			ok++;
			if (!r->ops || !(r->mops_mean > 0) || r->repetitions < 1) {
				printf("FAIL: %s/%s: ops %llu M/s %g reps %ld\n", r->guard, r->scenario,
				       (unsigned long long)r->ops, r->mops_mean, r->repetitions);
				bad++;
			}
		}
	}
	if (ok < 3) {
		printf("FAIL: only %d rows measured\n", ok);
		bad++;
	}
	printf("%zu rows, %d measured: %s\n", rs.n, ok, bad ? "FAIL" : "PASS");
	rg_results_free(&rs);
	return bad ? 1 : 0;
}
