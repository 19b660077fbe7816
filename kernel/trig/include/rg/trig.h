/* SPDX-License-Identifier: MIT */
/*
 * The trigger bench's BPF object loaded for a user outside the BPF bench: its
 * raw_tp program (trig_raw_tp: count a hit in this CPU's slot of hits[], no
 * filter), loaded and not attached, for the module's tramp scenario, which
 * calls it from its own trampoline-shaped loop (docs/kmod.md). kernel/bpf
 * opens the same object's skeletons itself (trig.skel.h, trig_kfunc.skel.h).
 */
#ifndef RG_TRIG_H
#define RG_TRIG_H

#include <stddef.h>
#include <stdint.h>

struct trig_bpf;

struct rg_trig_prog {
	struct trig_bpf *skel;
	int fd;			/* the program (BPF_PROG_TYPE_RAW_TRACEPOINT) */
	size_t hits_off;	/* byte offset of hits[] in the object's .bss map value */
	size_t hits_stride;	/* bytes per CPU slot */
	unsigned int hits_n;	/* slots: the program counts in slot cpu & (hits_n - 1) */
};

/* Open and load it. 0, or -errno with why filled ("ENOENT: ...", libbpf's word). */
int rg_trig_open_rawtp(struct rg_trig_prog *p, char *why, size_t wsize);
/* Hits counted so far, all slots. */
uint64_t rg_trig_hits(const struct rg_trig_prog *p);
void rg_trig_close(struct rg_trig_prog *p);

#endif /* RG_TRIG_H */
