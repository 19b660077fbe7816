#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Edit the kernel bench's benchs/bench_trigger.c (6.1) so that each trig-* bench loads only the
program it attaches: upstream 6.1 loads the whole trigger_bench object, so one type the kernel
refuses (fentry: EPERM under a lockdown or policy) fails every trig-* bench, raw_tp included.
Newer kernels do the same with "?" sections. Nothing else changes. usage: load_one.py FILE"""
import re
import sys

path = sys.argv[1]
src = open(path).read()
old = re.compile(r"static void setup_ctx\(void\)\n\{\n\tsetup_libbpf\(\);\n\n"
                 r"\tctx\.skel = trigger_bench__open_and_load\(\);\n"
                 r"\tif \(!ctx\.skel\) \{\n\t\tfprintf\(stderr, \"failed to open skeleton\\n\"\);\n"
                 r"\t\texit\(1\);\n\t\}\n\}")
new = r'''/* rgbench (tests/bpf/kbench/load_one.py): load only the program attached */
static void setup_ctx(const char *keep)
{
	struct bpf_program *p;

	setup_libbpf();
	ctx.skel = trigger_bench__open();
	if (!ctx.skel) {
		fprintf(stderr, "failed to open skeleton\n");
		exit(1);
	}
	bpf_object__for_each_program(p, ctx.skel->obj)
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p), keep));
	if (trigger_bench__load(ctx.skel)) {
		fprintf(stderr, "failed to load %s\n", keep);
		exit(1);
	}
}'''
src, n = old.subn(lambda m: new, src)
calls = re.compile(r"\tsetup_ctx\(\);\n\tattach_bpf\(ctx\.skel->progs\.(\w+)\);")
src, k = calls.subn(lambda m: '\tsetup_ctx("%s");\n\tattach_bpf(ctx.skel->progs.%s);' % (m[1], m[1]), src)
if n != 1 or k == 0 or "setup_ctx()" in src:
    sys.exit("load_one.py: %s is not the 6.1 bench_trigger.c this edit knows "
             "(setup_ctx found %d time(s), %d attach call(s))" % (path, n, k))
open(path, "w").write(src)
print("load_one.py: %s: setup_ctx loads only the attached program (%d benches)" % (path, k))
