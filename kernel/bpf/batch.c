// SPDX-License-Identifier: MIT
/* The BPF bench's driver batch, sized by measurement: a two-point fit of the test-run syscall's fixed cost against one event's. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rg/schema.h"
#include "bpf_internal.h"

/* The syscall's share of an event must fall under 5%: batch >= 19 S / e. */
#define SHARE_MAX 0.05

/* Smallest 1-2-5 value >= v (1000, 2000, 5000, 10000, ...). */
static long round_125(double v)
{
	for (long dec = 1; dec <= 1000000000L; dec *= 10)
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3)
			if ((double)(m * dec) >= v)
				return m * dec;
	return LONG_MAX;
}

/*
 * ns per bpf_prog_test_run_opts() of the helper driver loaded at batch 1 (t1)
 * and at CAL_BATCH (t2), CAL_ROUNDS alternating windows each, one producer on
 * the first CPU. 0, -EINTR, -ENOMEM or -ENODATA (a window without events).
 */
static int time_test_runs(struct ctx *c, const struct trig *t1, const struct trig *t2,
			  double win, double per[2][CAL_ROUNDS])
{
	struct producer prod[1];
	struct window w;
	struct run *r = run_alloc(1);
	int err = r ? 0 : -ENOMEM;

	if (!err) {
		r->pin = &c->pin;
		r->loop = LOOP_DRIVER;
		r->limit = UINT64_MAX;
		memset(prod, 0, sizeof(prod));
	}
	for (int i = 0; i < CAL_ROUNDS && !err; i++)
		for (int j = 0; j < 2 && !err; j++) {
			r->batch = j ? CAL_BATCH : 1;
			r->prog_fd = trig_driver_fd(j ? t2 : t1);
			err = run_window(r, prod, NULL, false, win, &w);
			if (!err && !w.events)
				err = -ENODATA;
			if (!err)	/* ns per test run */
				per[j][i] = 1e9 * w.wall * r->batch / (double)w.events;
		}
	run_free(r);
	return err;
}

/*
 * Time one bpf_prog_test_run_opts() of the helper driver (nothing attached)
 * at batch 1 and at CAL_BATCH, CAL_ROUNDS alternating windows each; per-run
 * time t(b) = S + b * e gives the fixed cost S of the syscall (entry, fd
 * lookup, test-run setup, the program call) and e, the cost of one event of
 * driver-empty, the cheapest driver path (largest share). The batch is the
 * largest of 1000 and the smallest 1-2-5 value with S / (S + batch * e) < 5%,
 * at most RG_TRIG_MAX_BATCH. Measured once per run, on the first CPU.
 */
int trig_size_batch(struct ctx *c, double win)
{
	struct trig t1, t2;
	double per[2][CAL_ROUNDS], tr1, tr2, e, s, want;
	char why[256];
	int err;

	c->batch = CAL_BATCH;
	if (trig_open(&t1, c->o, K_DRV_EMPTY, MODE_DRIVER, 1, why, sizeof(why))) {
		trig_say(c, "rgbench bpf: batch %d (cannot measure: %s)\n", c->batch, why);
		return 0;
	}
	if (trig_open(&t2, c->o, K_DRV_EMPTY, MODE_DRIVER, CAL_BATCH, why, sizeof(why))) {
		trig_close(&t1);
		trig_say(c, "rgbench bpf: batch %d (cannot measure: %s)\n", c->batch, why);
		return 0;
	}
	err = time_test_runs(c, &t1, &t2, win, per);
	trig_close(&t1);
	trig_close(&t2);
	if (err == -EINTR || err == -ENOMEM)
		return err;
	if (err) {
		trig_say(c, "rgbench bpf: batch %d (the timing runs failed: %s)\n", c->batch,
		    strerror(-err));
		return 0;
	}
	tr1 = rg_stat_median(per[0], CAL_ROUNDS);
	tr2 = rg_stat_median(per[1], CAL_ROUNDS);
	e = (tr2 - tr1) / (CAL_BATCH - 1);
	s = tr1 - e;
	if (!(e > 0) || !(s > 0)) {
		trig_say(c, "rgbench bpf: batch %d (inconclusive: %.1f ns per run at batch 1, %.1f at %d)\n",
		    c->batch, tr1, tr2, CAL_BATCH);
		return 0;
	}
	want = (1 - SHARE_MAX) / SHARE_MAX * s / e;
	c->batch = (int)fmin(fmax((double)round_125(want), CAL_BATCH), RG_TRIG_MAX_BATCH);
	trig_say(c, "rgbench bpf: batch %d: a test run costs %.0f ns + %.2f ns per event (driver-empty); "
	    "the syscall's share falls under 5%% from batch %.0f; share at %d: %.1f%%%s\n", c->batch,
	    s, e, ceil(want), c->batch, 100 * s / (s + c->batch * e),
	    want > RG_TRIG_MAX_BATCH ? " (capped at the largest batch the programs allow)" : "");
	return 0;
}
