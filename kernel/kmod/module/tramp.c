// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF program the tramp scenario runs (tramp.h): resolved from a file
 * descriptor in the process that writes it to debugfs prog
 * (bpf_prog_get_type_dev(), a raw_tp program, JITed), held until the next
 * write, a failed one, or rmmod; and the per-CPU counter it counts its runs in
 * (the trigger bench's hits[] in its .bss map), read around every timed run.
 */
#include "kmod.h"
#include <linux/bpf.h>
#include <linux/filter.h>

/*
 * RG_FORCE_NO_JIT=1 (make RG_FORCE_NO_JIT=1, see Kbuild) builds the path of a
 * kernel without CONFIG_BPF_SYSCALL or CONFIG_BPF_JIT on a kernel that has
 * them, so that the tests load it: no bpf_prog_get_type_dev(), every program
 * refused with EOPNOTSUPP, the tramp rows skipped with the reason.
 */
#ifndef RG_FORCE_NO_JIT
#define RG_FORCE_NO_JIT 0
#endif
#if IS_ENABLED(CONFIG_BPF_SYSCALL) && IS_ENABLED(CONFIG_BPF_JIT) && !RG_FORCE_NO_JIT
#define RG_TRAMP_BUILT 1
#else
#define RG_TRAMP_BUILT 0
#endif

struct bpf_prog *rg_tprog;
DEFINE_PER_CPU(struct bpf_prog_stats, rg_tramp_pstats);
u64 rg_tramp_cookie;
static char *rg_thits;			/* hits[0] in the .bss map's value */
static size_t rg_thits_stride;
static unsigned int rg_thits_n;		/* a power of two */
static const char *rg_tramp_why __maybe_unused;	/* why the last program written was refused, or NULL */

const char *rg_tramp_unavailable(void)
{
#if RG_FORCE_NO_JIT
	return "built with RG_FORCE_NO_JIT=1: the path of a kernel without CONFIG_BPF_SYSCALL or CONFIG_BPF_JIT";
#elif !RG_TRAMP_BUILT
	return "kernel built without CONFIG_BPF_SYSCALL or CONFIG_BPF_JIT";
#else
	if (!rg_tprog && rg_tramp_why)
		return rg_tramp_why;
	if (!rg_tprog)
		return "no BPF program: write its fd to debugfs prog (rgbench kmod --scenarios tramp does)";
	return NULL;
#endif
}

u64 rg_tramp_hits(int cpu)
{
	return rg_thits ? READ_ONCE(*(u64 *)(rg_thits + (size_t)(cpu & (rg_thits_n - 1)) *
					       rg_thits_stride)) : 0;
}

void rg_tramp_release(void)
{
#if IS_ENABLED(CONFIG_BPF_SYSCALL)
	if (rg_tprog) {
		bpf_prog_put(rg_tprog);
		pr_info("prog: released\n");
	}
#endif
	rg_tprog = NULL;
	rg_thits = NULL;
	rg_tramp_why = NULL;
}

#if RG_TRAMP_BUILT
/* The program's .bss map value (an array map of one element), or NULL. */
static char *rg_tramp_bss(struct bpf_prog *prog, size_t need)
{
	u32 i, zero = 0;

	for (i = 0; i < prog->aux->used_map_cnt; i++) {
		struct bpf_map *map = prog->aux->used_maps[i];
		size_t l = strnlen(map->name, sizeof(map->name));

		if (map->map_type == BPF_MAP_TYPE_ARRAY && l >= 4 &&
		    !strcmp(map->name + l - 4, ".bss") && map->value_size >= need)
			return map->ops->map_lookup_elem(map, &zero);
	}
	return NULL;
}
#endif

/*
 * "FD OFF STRIDE N": the program's fd in the writer's process, and where its
 * per-CPU run counters are in its .bss (byte offset, bytes per slot, slots).
 * Replaces the program held; on any error nothing is held (and the tramp
 * rows say why until the next write or run). 0 or -errno: EINVAL (not that
 * request, not a BPF program, another type, not the trigger bench's), EBADF
 * (no such fd), EOPNOTSUPP (not JITed, or no program can run here).
 */
int rg_tramp_set(const char *req)
{
#if RG_TRAMP_BUILT
	struct bpf_prog *prog;
	unsigned long off, stride;
	unsigned int n;
	int fd;
	char *bss;

	rg_tramp_release();
	if (sscanf(req, "%d %lu %lu %u", &fd, &off, &stride, &n) != 4 || fd < 0 || !n ||
	    (n & (n - 1)) || stride < sizeof(u64) || off > SZ_1M || stride > SZ_4K || n > 65536) {
		pr_err("prog: want \"FD OFF STRIDE N\" (N a power of two), got \"%.40s\"\n", req);
		return -EINVAL;
	}
	prog = bpf_prog_get_type_dev(fd, BPF_PROG_TYPE_RAW_TRACEPOINT, false);
	if (IS_ERR(prog)) {
		pr_err("prog: fd %d is not a raw_tp BPF program of this process (%ld)\n", fd,
		       PTR_ERR(prog));
		rg_tramp_why = "the fd written to prog was not a raw_tp BPF program (see dmesg)";
		return PTR_ERR(prog);
	}
	if (!prog->jited) {
		bpf_prog_put(prog);
		pr_err("prog: the program is not JITed (net.core.bpf_jit_enable=0?)\n");
		rg_tramp_why = "the program written to prog is not JITed (net.core.bpf_jit_enable=0?)";
		return -EOPNOTSUPP;
	}
	bss = rg_tramp_bss(prog, off + (size_t)n * stride);
	if (!bss) {
		bpf_prog_put(prog);
		pr_err("prog: the program has no .bss map of %lu bytes (not the trigger bench's raw_tp program?)\n",
		       off + (size_t)n * stride);
		rg_tramp_why = "the program written to prog has no trigger bench .bss (see dmesg)";
		return -EINVAL;
	}
	rg_thits = bss + off;
	rg_thits_stride = stride;
	rg_thits_n = n;
	WRITE_ONCE(rg_tprog, prog);
	pr_info("prog: %s (id %u) held, %u run counters, the trampoline's shapes of %s\n",
		prog->aux->name, prog->aux->id, n, RG_TRAMP_SHAPES_NAME);
	return 0;
#else
	pr_err("prog: %s\n", rg_tramp_unavailable());
	return -EOPNOTSUPP;
#endif
}
