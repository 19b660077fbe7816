// SPDX-License-Identifier: MIT
/* rg_trig_open_rawtp(): the trigger bench's raw_tp program alone, loaded for the module's tramp scenario. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rg/trig.h"
#include "rg/trig_common.h"
#include "trig.skel.h"

int rg_trig_open_rawtp(struct rg_trig_prog *p, char *why, size_t wsize)
{
	struct bpf_program *prog;
	int err;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->skel = trig_bpf__open();
	if (!p->skel) {
		err = errno ? errno : EINVAL;
		snprintf(why, wsize, "%s: cannot open the BPF object", strerrorname_np(err) ?: "E?");
		return -err;
	}
	/* Count per CPU with a plain add, no process or syscall filter: the module calls it. */
	p->skel->rodata->count_mode = 0;
	p->skel->rodata->recurse = 0;
	p->skel->rodata->filter_tgid = 0;
	p->skel->rodata->filter_id = -1;
	prog = p->skel->progs.trig_raw_tp;
	bpf_program__set_autoload(prog, true);
	err = trig_bpf__load(p->skel);
	if (err) {
		snprintf(why, wsize, "%s: the kernel refused to load the raw_tp program",
			 strerrorname_np(-err) ?: "E?");
		rg_trig_close(p);
		return err < 0 ? err : -EINVAL;
	}
	p->fd = bpf_program__fd(prog);
	p->hits_off = (size_t)((char *)p->skel->bss->hits - (char *)p->skel->bss);
	p->hits_stride = sizeof(p->skel->bss->hits[0]);
	p->hits_n = RG_TRIG_MAX_CPUS;
	return 0;
}

uint64_t rg_trig_hits(const struct rg_trig_prog *p)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; p->skel && i < p->hits_n; i++)
		sum += __atomic_load_n(&p->skel->bss->hits[i].value, __ATOMIC_RELAXED);
	return sum;
}

void rg_trig_close(struct rg_trig_prog *p)
{
	if (p->skel)
		trig_bpf__destroy(p->skel);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}
