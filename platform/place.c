// SPDX-License-Identifier: MIT
/* CPU placement (rg/place.h): hwloc's placement order and verified pinning, or the affinity mask without hwloc. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/place.h"
#if RG_HAVE_HWLOC
#include "rg/platform.h"
#endif

/* The CPUs this process may use, in hwloc's placement order; 0 without hwloc or when it fails. */
static int hwloc_order(struct rg_place *p)
{
#if RG_HAVE_HWLOC
	char terr[256];
	int n;

	if (rg_topo_init(terr, sizeof(terr)))
		return 0;
	n = rg_topo_order(p->cpu, RG_MAX_CPUS);
	if (n > 0)
		p->how = "hwloc";
	return n > 0 ? n : 0;
#else
	(void)p;
	return 0;
#endif
}

/* The affinity mask in CPU order: the fallback, and the only order without hwloc. */
static int affinity_order(struct rg_place *p)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		p->how = "none";
		return 0;
	}
	p->how = "affinity";
	for (int c = 0; c < CPU_SETSIZE && n < RG_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			p->cpu[n++] = c;
	return n;
}

int rg_place_init(struct rg_place *p, const int *want, int nwant, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->ncpus = hwloc_order(p);
	if (!p->ncpus)
		p->ncpus = affinity_order(p);
	if (nwant <= 0)
		return 0;
	for (int i = 0; i < nwant; i++) {
		bool ok = false;

		for (int j = 0; j < p->ncpus && !ok; j++)
			ok = p->cpu[j] == want[i];
		if (!ok) {
			snprintf(err, errlen, "CPU %d is not available (allowed: %d CPU(s), "
				 "see rgbench --list)", want[i], p->ncpus);
			return -1;
		}
	}
	memcpy(p->cpu, want, (size_t)nwant * sizeof(int));
	p->ncpus = nwant;
	return 0;
}

int rg_place_cpu(const struct rg_place *p, int idx)
{
	return p->ncpus ? p->cpu[idx % p->ncpus] : -1;
}

int rg_place_pin_self(const struct rg_place *p, int idx, char *err, size_t errlen)
{
	char local[256];
	cpu_set_t set;
	int cpu = rg_place_cpu(p, idx), rc;

	if (!err) {
		err = local;
		errlen = sizeof(local);
	}
	if (cpu < 0) {
		snprintf(err, errlen, "no CPU to pin to");
		return -1;
	}
#if RG_HAVE_HWLOC
	if (!strcmp(p->how, "hwloc"))
		return rg_topo_pin_self(cpu, err, errlen);
#endif
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc) {
		snprintf(err, errlen, "pthread_setaffinity_np(CPU %d): %s", cpu, strerror(rc));
		return -1;
	}
	return 0;
}

/* ---- the quiet-CPU order (rg_place_quiet) --------------------------------- */

/* A kernel CPU list ("2-3,5", "(null)", "") as a membership table of RG_MAX_CPUS; how many. */
static int cpu_list_file(const char *root, const char *name, bool *in, char *text, size_t len)
{
	char path[4200], buf[4096];
	FILE *f;
	int n = 0;

	memset(in, 0, RG_MAX_CPUS * sizeof(*in));
	text[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/%s", root, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	for (char *p = buf; *p;) {
		char *e;
		long a = strtol(p, &e, 10), b = a;

		if (e == p)
			return 0;	/* "(null)" or junk: none */
		if (*e == '-') {
			p = e + 1;
			b = strtol(p, &e, 10);
			if (e == p)
				return 0;
		}
		for (long c = a; c <= b && c < RG_MAX_CPUS; c++)
			if (c >= 0 && !in[c]) {
				in[c] = true;
				n++;
			}
		p = *e == ',' ? e + 1 : e;
		if (*e && *e != ',')
			return 0;
	}
	if (n)
		snprintf(text, len, "%s", buf);
	return n;
}

/*
 * The interrupts each CPU has taken since boot: <root>/proc/interrupts, the
 * header's CPU<n> columns summed over every line that has a count for each
 * (ERR and MIS, one count, are left out). 0, or -1 when unreadable.
 */
static int interrupts(const char *root, unsigned long long *irq)
{
	char path[4200], *line = NULL;
	int col[RG_MAX_CPUS], ncol = 0;
	size_t cap = 0;
	FILE *f;

	memset(irq, 0, RG_MAX_CPUS * sizeof(*irq));
	snprintf(path, sizeof(path), "%s/proc/interrupts", root);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (getline(&line, &cap, f) > 0) {
		for (char *p = strstr(line, "CPU"); p && ncol < RG_MAX_CPUS; p = strstr(p, "CPU")) {
			char *e;
			long c = strtol(p + 3, &e, 10);

			col[ncol++] = e != p + 3 && c >= 0 && c < RG_MAX_CPUS ? (int)c : -1;
			p = e != p + 3 ? e : p + 3;
		}
	}
	while (ncol && getline(&line, &cap, f) > 0) {
		unsigned long long v[RG_MAX_CPUS];
		char *p = strchr(line, ':'), *e;
		int k = 0;

		if (!p)
			continue;
		for (p++; k < ncol; k++, p = e) {
			v[k] = strtoull(p, &e, 10);
			if (e == p)
				break;
		}
		if (k < ncol)
			continue;
		for (k = 0; k < ncol; k++)
			if (col[k] >= 0)
				irq[col[k]] += v[k];
	}
	free(line);
	fclose(f);
	return ncol ? 0 : -1;
}

/*
 * A count's power of two (its bit length): CPUs whose counts share it keep
 * the topology's order, so that two commands do not swap CPUs over a small
 * change of counts (a CPU's figures can differ from another's: compare
 * files measured on the same CPUs).
 */
static int bits(unsigned long long v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

void rg_place_quiet(int *cpus, int n, const bool *smt, const int *pkg, const char *root,
		    char *why, size_t whylen)
{
	static bool iso[RG_MAX_CPUS], nohz[RG_MAX_CPUS];
	static unsigned long long irq[RG_MAX_CPUS];
	char isot[256], nohzt[256], list[160] = "";
	int niso, nnohz, have_irq, key[RG_MAX_CPUS][5], idx[RG_MAX_CPUS], sorted[RG_MAX_CPUS];
	size_t off = 0;

	if (!root)
		root = "";
	if (n <= 1) {
		snprintf(why, whylen, "the only CPU allowed");
		return;
	}
	niso = cpu_list_file(root, "isolated", iso, isot, sizeof(isot));
	nnohz = cpu_list_file(root, "nohz_full", nohz, nohzt, sizeof(nohzt));
	have_irq = interrupts(root, irq) == 0;
	/* Stable: the class, cores before SMT siblings, package, CPU 0 last, fewest interrupts. */
	for (int i = 0; i < n; i++) {
		int c = cpus[i], ok = c >= 0 && c < RG_MAX_CPUS;

		key[i][0] = ok && iso[c] ? 0 : ok && nohz[c] ? 1 : 2;
		key[i][1] = smt && smt[i];
		key[i][2] = pkg ? pkg[i] : 0;
		key[i][3] = c == 0;
		key[i][4] = i;
		idx[i] = i;
	}
	for (int i = 1; i < n; i++) {	/* insertion sort: stable, n is small */
		int x = idx[i], j = i - 1;

		for (; j >= 0; j--) {
			int y = idx[j], d = 0;

			for (int k = 0; k < 4 && !d; k++)
				d = key[y][k] - key[x][k];
			if (!d && have_irq && key[x][0] == 2)
				d = bits(irq[cpus[y] < RG_MAX_CPUS ? cpus[y] : 0]) -
				    bits(irq[cpus[x] < RG_MAX_CPUS ? cpus[x] : 0]);
			if (d <= 0)
				break;
			idx[j + 1] = y;
		}
		idx[j + 1] = x;
	}
	for (int i = 0; i < n; i++)
		sorted[i] = cpus[idx[i]];
	memcpy(cpus, sorted, (size_t)n * sizeof(int));

	/* Why: the classes found, then how the others were ordered (the first two with their counts). */
	if (niso && nnohz)
		off = (size_t)snprintf(why, whylen, "isolated first (%.40s), then nohz_full (%.40s); then ",
				       isot, nohzt);
	else if (niso)
		off = (size_t)snprintf(why, whylen, "isolated first (%.60s); then ", isot);
	else if (nnohz)
		off = (size_t)snprintf(why, whylen, "nohz_full first (%.60s); then ", nohzt);
	else
		off = (size_t)snprintf(why, whylen, "none isolated or nohz_full; ");
	if (off >= whylen)
		return;
	for (int i = 0, shown = 0, l = 0; i < n && l < (int)sizeof(list); i++) {
		int c = cpus[i];

		if (c < 0 || c >= RG_MAX_CPUS || iso[c] || nohz[c])
			continue;
		if (shown == 2) {
			snprintf(list + l, sizeof(list) - (size_t)l, ", ...");
			break;
		}
		l += snprintf(list + l, sizeof(list) - (size_t)l, "%sCPU %d: %llu", shown ? ", " : "", c, irq[c]);
		shown++;
	}
	if (!list[0])	/* every CPU in a class: drop the "; then " */
		why[off - (niso || nnohz ? 7 : 2)] = '\0';
	else if (!have_irq)
		snprintf(why + off, whylen - off, "CPU 0 last, the others in topology order (no /proc/interrupts)");
	else
		snprintf(why + off, whylen - off, "CPU 0 last, the others by fewest interrupts (%s)", list);
}
