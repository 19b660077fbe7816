// SPDX-License-Identifier: MIT
/* Reads the core PMU's event list and format bit ranges from sysfs: no hard-coded encodings. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rg/input.h"

#include "pmu_events.h"

#define DEVICES "/sys/bus/event_source/devices"

/*
 * Read a small sysfs file, trailing whitespace removed. 0 or -errno; a FIFO,
 * device or directory where a file should be (the input policy, rg/input.h:
 * never blocks) is -EINVAL.
 */
static int read_small(const char *path, char *buf, size_t size)
{
	char why[128];
	int fd = rg_input_open(path, size, RG_IN_PSEUDO, why, sizeof(why));
	ssize_t n;
	size_t len;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	len = (size_t)n;
	while (len && strchr(" \t\r\n", buf[len - 1]))
		len--;
	buf[len] = 0;
	return 0;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* A whole string as an unsigned number (0x hex or decimal). */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

int rg_pmu_apply_format(const char *format, uint64_t value, uint64_t cfg[3],
			char *why, size_t whylen)
{
	const char *colon = strchr(format, ':'), *p;
	uint64_t mask = 0;
	int word, placed = 0;
	size_t wl;

	if (!colon)
		goto garbled;
	wl = (size_t)(colon - format);
	if (wl == 6 && !strncmp(format, "config", 6))
		word = 0;
	else if (wl == 7 && !strncmp(format, "config1", 7))
		word = 1;
	else if (wl == 7 && !strncmp(format, "config2", 7))
		word = 2;
	else
		goto garbled;
	p = colon + 1;
	for (;;) {
		char *end;
		unsigned long lo, hi;

		if (*p < '0' || *p > '9')
			goto garbled;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				goto garbled;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (lo > hi || hi > 63)
			goto garbled;
		/* Value bits go, lowest first, into the field's bits in order. */
		for (unsigned long b = lo; b <= hi; b++, placed++) {
			if (mask & (1ull << b))
				goto garbled;	/* overlapping ranges */
			mask |= 1ull << b;
			if (placed < 64 && (value >> placed) & 1)
				cfg[word] |= 1ull << b;
		}
		if (!*p)
			break;
		if (*p != ',')
			goto garbled;
		p++;
	}
	if (placed < 64 && value >> placed) {
		snprintf(why, whylen, "value 0x%llx does not fit in %d bits (%s)",
			 (unsigned long long)value, placed, format);
		return -1;
	}
	return 0;
garbled:
	snprintf(why, whylen, "format '%.60s' is not <config|config1|config2>:<bits>",
		 printable(format) ? format : "?");
	return -1;
}

/* Encode one event's text ("event=0x13,umask=0x1") with the PMU's format files. */
static int encode(const char *pmudir, const char *text, struct rg_pmu_event *ev,
		  char *why, size_t whylen)
{
	uint64_t cfg[3] = { 0, 0, 0 };
	char buf[256], *save = NULL, *term;

	if (!*text || !printable(text) || strlen(text) >= sizeof(buf)) {
		snprintf(why, whylen, "event text is empty or not printable");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	/* Each term once: strtok_r with "," would silently merge ",,". */
	if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,")) {
		snprintf(why, whylen, "event text '%.60s' has an empty term", text);
		return -1;
	}
	for (term = strtok_r(buf, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '='), path[4096], fmt[256];
		uint64_t v = 1;		/* a bare field name means 1 */
		int err;

		if (eq) {
			*eq = 0;
			if (!parse_u64(eq + 1, &v)) {
				snprintf(why, whylen, "field %.40s: value '%.40s' is not a number%s", term,
					 eq + 1, !strcmp(eq + 1, "?") ? " (event takes a parameter)" : "");
				return -1;
			}
		}
		if (!*term || strchr(term, '/') || term[0] == '.') {
			snprintf(why, whylen, "bad field name in '%.60s'", text);
			return -1;
		}
		if (snprintf(path, sizeof(path), "%s/format/%s", pmudir, term) >= (int)sizeof(path))
			err = -ENAMETOOLONG;
		else
			err = read_small(path, fmt, sizeof(fmt));
		if (err) {
			snprintf(why, whylen, "field %.40s: no format/%.40s (%s)", term, term,
				 strerrorname_np(-err) ? strerrorname_np(-err) : "error");
			return -1;
		}
		if (rg_pmu_apply_format(fmt, v, cfg, why, whylen))
			return -1;
	}
	ev->config = cfg[0];
	ev->config1 = cfg[1];
	ev->config2 = cfg[2];
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The core PMU's directory name: cpu, cpu_core, else the first armv8_*. */
static int find_core_pmu(const char *devdir, char *name, size_t size)
{
	DIR *d = opendir(devdir);
	struct dirent *de;
	char *arm[64];
	size_t narm = 0;
	int found = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, "cpu") || !strcmp(de->d_name, "cpu_core")) {
			if ((found != 1 || !strcmp(de->d_name, "cpu")) &&
			    snprintf(name, size, "%s", de->d_name) >= (int)size)
				continue;
			found = 1;
		} else if (!strncmp(de->d_name, "armv8_", 6) && narm < 64) {
			arm[narm] = strdup(de->d_name);
			if (arm[narm])
				narm++;
		}
	}
	closedir(d);
	if (!found && narm) {
		qsort(arm, narm, sizeof(*arm), cmp_str);
		snprintf(name, size, "%s", arm[0]);
		found = 1;
	}
	for (size_t i = 0; i < narm; i++)
		free(arm[i]);
	return found;
}

static void add_why(char *why, size_t size, const char *fmt, const char *name, const char *what)
{
	size_t l = strlen(why);

	if (l + 8 < size)
		snprintf(why + l, size - l, fmt, l ? "; " : "", name, what);
}

size_t rg_pmu_discover(const char *root, const char *wanted, struct rg_pmu_events *out)
{
	char devdir[4096], pmudir[4096], path[4200], buf[256], skipped[480] = "";
	char list[512], *save = NULL, *name;
	uint64_t type;
	int err;

	memset(out, 0, sizeof(*out));
	if (snprintf(devdir, sizeof(devdir), "%s" DEVICES, root ? root : "") >= 3000) {
		snprintf(out->why, sizeof(out->why), "n/a: RG_TEST_SYSFS_ROOT is too long");
		return 0;
	}
	if (!find_core_pmu(devdir, out->pmu, sizeof(out->pmu))) {
		snprintf(out->why, sizeof(out->why),
			 "n/a: no hardware PMU (no cpu or armv8_* in %.200s)", devdir);
		return 0;
	}
	snprintf(pmudir, sizeof(pmudir), "%.3000s/%.63s", devdir, out->pmu);
	snprintf(path, sizeof(path), "%.4000s/type", pmudir);
	err = read_small(path, buf, sizeof(buf));
	if (err) {
		snprintf(out->why, sizeof(out->why), "n/a: PMU %s: cannot read type (%s)", out->pmu,
			 strerrorname_np(-err) ? strerrorname_np(-err) : "error");
		return 0;
	}
	if (!parse_u64(buf, &type) || type > UINT32_MAX) {
		snprintf(out->why, sizeof(out->why), "n/a: PMU %s: type '%.32s' is not a number",
			 out->pmu, printable(buf) ? buf : "?");
		return 0;
	}
	snprintf(list, sizeof(list), "%s", wanted ? wanted : "");
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		struct rg_pmu_event *ev = &out->ev[out->n];
		char reason[160];

		if (out->n == RG_PMU_MAX_EVENTS || strchr(name, '/') || name[0] == '.' ||
		    strlen(name) >= sizeof(ev->name))
			continue;
		snprintf(path, sizeof(path), "%.4000s/events/%.47s", pmudir, name);
		err = read_small(path, buf, sizeof(buf));
		if (err == -ENOENT)
			continue;	/* not offered by this PMU */
		if (err) {
			add_why(skipped, sizeof(skipped), "%s%s: %s", name,
				strerrorname_np(-err) ? strerrorname_np(-err) : "read error");
			continue;
		}
		if (encode(pmudir, buf, ev, reason, sizeof(reason))) {
			add_why(skipped, sizeof(skipped), "%s%s: %s", name, reason);
			continue;
		}
		snprintf(ev->name, sizeof(ev->name), "%s", name);
		ev->type = (uint32_t)type;
		out->n++;
	}
	if (out->n)
		snprintf(out->why, sizeof(out->why), "%s", skipped);
	else if (skipped[0])
		snprintf(out->why, sizeof(out->why), "n/a: PMU %s: %s", out->pmu, skipped);
	else
		snprintf(out->why, sizeof(out->why), "n/a: PMU %s offers none of %.300s", out->pmu,
			 wanted ? wanted : "");
	return out->n;
}

void rg_pmu_format_values(const struct rg_pmu_events *e, const double *per_pair,
			  char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < e->n && o < size; i++) {
		int w = snprintf(buf + o, size - o, "%s%s=%.3f", i ? ";" : "", e->ev[i].name,
				 per_pair[i]);

		if (w < 0)
			break;
		o += (size_t)w;
	}
}
