/* SPDX-License-Identifier: MIT */
/* What the driver's files (cli.c, load.c, convert.c) share and nobody else sees. */
#ifndef RG_KMOD_INT_H
#define RG_KMOD_INT_H

#include <stdbool.h>
#include <stddef.h>

#define RG_KMOD_NAME "rgbench_kmod"		/* the module, its debugfs and sysfs directories */

/* What one run of the module is asked to do: the module parameters and where the .ko comes from. */
struct rg_kmod_run_opts {
	const char *guards, *cpus;	/* module lists, already checked for allowed characters */
	const char *scenarios;		/* loop, tramp or loop,tramp (checked) */
	const char *kdir;		/* build against this; NULL: the running kernel's headers */
	const char *module;		/* use this .ko instead of building one */
	const char *src;		/* the module's sources: $RG_KMOD_SRC, else rgbench's own (rg/paths.h) */
	unsigned long loops, runs, duty_ns, irq_iters, threads, run_ns;
	unsigned long duty_in_ns;	/* of duty_ns, inside the guarded region */
	bool irqs_on, siblings, no_nmi;
	bool ladder;			/* ladder=1: the parts of the composite designs too */
};

/*
 * Build (or take) the module, load it with the parameters, trigger the run,
 * read its CSV from debugfs and unload it; SIGINT/SIGTERM/SIGHUP/SIGQUIT are
 * held back from load to unload. Returns RG_EXIT_OK with the module's CSV
 * in *csv (free() it), RG_EXIT_SKIP (cannot run here: root, module support,
 * headers, permission), RG_EXIT_FAIL, or RG_EXIT_SIGNAL + the signal that
 * arrived (nothing in *csv) (rg/cmdline.h). Every outcome but 0 has printed
 * its one line.
 */
int rg_kmod_run(const struct rg_kmod_run_opts *o, char **csv);

/*
 * A whole file into a NUL-terminated buffer (free() it) under the input
 * policy (rg/input.h; flags RG_IN_PSEUDO for debugfs and logs). 0, or -1
 * with "PATH: why" in err.
 */
int rg_kmod_read_file(const char *path, unsigned int flags, char **out, char *err,
		      size_t errlen);

/*
 * Where the module's file name is: src/name, or the build's generated
 * RG_KMOD_GEN_DIR/name. 0 with the path, or -1 (neither exists).
 */
int rg_kmod_source(const char *src, const char *name, char *path, size_t len);

#endif /* RG_KMOD_INT_H */
