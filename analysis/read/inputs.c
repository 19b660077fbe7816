// SPDX-License-Identifier: MIT
/* The inputs of a page (report, compare --across-hosts): every file and every run of every directory, read once, with what the page says about each file (its schema version, its timer). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/results.h"

/* The run's timer as the page says it ("" when its files have none). */
static void timer_text(struct input *in)
{
	in->timer[0] = 0;
	for (size_t i = 0; i < in->rows.nfiles; i++) {
		const struct rg_timer *t = &in->rows.timers[i];

		if (!t->source)
			continue;
		snprintf(in->timer, sizeof(in->timer),
			 "%s at %.4g MHz, resolution %.3g ns, overhead %.3g ns subtracted per batch",
			 t->source, t->hz / 1e6, t->resolution_ns, t->overhead_ns);
		break;
	}
}

/* Free what rp_read_inputs() read, the array included. */
void rp_inputs_free(struct input *in, size_t nin)
{
	for (size_t i = 0; in && i < nin; i++) {
		rg_rows_free(&in[i].rows);
		free((char *)in[i].path);
	}
	free(in);
}

/* Where rp_read_inputs() puts the runs: an array that grows with them. */
struct inputs {
	struct input **in;
	size_t *nin, cap;
};

/* One run into the next input. 0, or -1 with err set. */
static int read_input(struct rg_dir_run *run, bool listed, void *arg, char *err, size_t errlen)
{
	struct inputs *to = arg;
	struct input *v = rg_grow(*to->in, &to->cap, *to->nin, sizeof(*v), 16), *in;

	(void)listed;
	if (!v) {	/* any number of files, as far as memory goes */
		snprintf(err, errlen, "out of memory after %zu files: give fewer at once", *to->nin);
		return -1;
	}
	*to->in = v;
	in = &v[*to->nin];
	memset(in, 0, sizeof(*in));
	/* x.csv beside x.json: validated, same run id, but the JSON is the source. */
	in->path = strdup(run->path);
	(*to->nin)++;
	if (!in->path || rg_read_run(run, &in->rows, err, errlen))
		return -1;
	in->version = in->rows.n ? rg_row_i(&in->rows.v[0], RG_COL_schema_version) : 0;
	timer_text(in);
	return 0;
}

/*
 * Every FILE and every run of every DIR into *in (allocated, any number of
 * them), each file read once: a bad file is one line on stderr and nothing
 * written. 0, or -1 with err set; either way rp_inputs_free(*in, *nin).
 */
int rp_read_inputs(int argc, char **argv, int first, struct input **in, size_t *nin,
		   char *err, size_t errlen)
{
	struct inputs to = { in, nin, 0 };

	*in = NULL;
	*nin = 0;
	return rg_each_run(argv + first, (size_t)(argc - first), read_input, &to, err, errlen);
}

