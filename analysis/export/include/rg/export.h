/* SPDX-License-Identifier: MIT */
/* The results room's export (analysis/export/, library rg_export): a result file in another tool's format. */
#ifndef RG_EXPORT_H
#define RG_EXPORT_H

/*
 * rgbench export --gbench FILE [--out OUT]: Google Benchmark's JSON
 * ({context, benchmarks[]}) that its compare.py reads (argv[0]: the name).
 */
int rg_export_main(int argc, char **argv);

#endif /* RG_EXPORT_H */
