// SPDX-License-Identifier: MIT
/* The page as a whole: the options report and compare share (--width, --unit), and a page built in memory and written all or nothing. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/cmdline.h"
#include "rg/page.h"
#include "rg/text.h"
#include "rg/writer.h"

int rp_opt_width(const char *arg, long *width)
{
	return rg_cl_long("--width", arg, RG_REPORT_MIN_WIDTH, 400, width) ? RG_EXIT_USAGE : 0;
}

int rp_opt_unit(const char *arg, const char **unit)
{
	if (strcmp(arg, "ns") && strcmp(arg, "cycles"))
		return rg_cl_usage_error("--unit takes ns or cycles, not '%s'", arg);
	*unit = arg;
	return 0;
}

int rp_page_open(struct ctx *c, char *err, size_t errlen)
{
	c->f = open_memstream(&c->buf, &c->blen);
	if (!c->f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int rp_page_emit(struct ctx *c, const char *out, char *err, size_t errlen)
{
	if (fclose(c->f)) {
		snprintf(err, errlen, "out of memory");
		return RG_EXIT_FAIL;
	}
	if (rg_cl_signal_status())
		return RG_EXIT_FAIL;	/* nothing after a stop signal: rp_page_end() says so */
	rg_utf8_repair(c->buf);		/* a name cut to a table's buffer: no half character */
	if (!out)
		return rg_cl_stdout_write(c->buf, c->blen);
	if (rg_output_write(out, c->buf, c->blen, err, errlen))
		return RG_EXIT_FAIL;
	if (c->quiet < 2) {
		char shown[4200];

		rg_str_printable(shown, sizeof(shown), out);	/* the terminal's sanitizer */
		/* on stderr, as every command names what it wrote: stdout carries only the page */
		fprintf(stderr, "rgbench %s: wrote %s\n", c->cmd ? c->cmd : "report", shown);
	}
	return RG_EXIT_OK;
}

int rp_page_end(struct ctx *c, int ret, const char *err)
{
	if (rg_cl_signal_status() && ret != RG_EXIT_OK)
		ret = rg_cl_interrupted();	/* one line, 128+signal */
	else if (err[0])
		rg_cl_error("%s", err);
	free(c->buf);
	for (int d = 0; d < c->nplotdir; d++) {
		free(c->plotdir[d]);
		free(c->plotrel[d]);
	}
	free(c->plotdir);
	free(c->plotrel);
	c->plotdir = c->plotrel = NULL;
	c->nplotdir = 0;
	return ret;
}

