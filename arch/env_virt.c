// SPDX-License-Identifier: MIT
/* The virt column: bare metal, which hypervisor, or which emulator, decided from CPUID/MIDR and /proc, /sys files. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/env.h"
#include "rg/input.h"
#include "rg/midr.h"
#include "env_arch.h"

/*
 * Reads root/rel into buf (at most len-1 bytes). NULs (device-tree string
 * lists) become ',' so the content can be searched as one string; trailing
 * blanks and newlines are dropped. False when the file cannot be read or is empty.
 */
static bool rd(const char *root, const char *rel, char *buf, size_t len)
{
	char path[512], why[128];
	size_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	/* The input policy: a FIFO or device under a test root never blocks. */
	fd = rg_input_open(path, len, RG_IN_PSEUDO, why, sizeof(why));
	if (fd < 0)
		return false;
	while (n < len - 1) {
		ssize_t r = read(fd, buf + n, len - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ',';
	while (n && (isspace((unsigned char)buf[n - 1]) || buf[n - 1] == ','))
		n--;
	buf[n] = '\0';
	return n > 0;
}

static bool exists(const char *root, const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	return stat(path, &st) == 0;
}

/* A lower-case word made of [a-z0-9-] from s (e.g. "xen" from "xen\n"). */
static void word(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '_')
			out[n++] = (char)tolower(c);
		else if (n)
			break;
	}
	out[n] = '\0';
}

/* x86 CPUID leaf 0x40000000 signature -> hypervisor name, NULL when unknown. */
static const char *from_cpuid_sig(const char *sig)
{
	static const struct { const char *sig, *name; } tab[] = {
		{ "KVMKVMKVM", "kvm" }, { "Linux KVM Hv", "kvm" },
		{ "Microsoft Hv", "hyperv" }, { "VMwareVMware", "vmware" },
		{ "XenVMMXenVMM", "xen" }, { "VBoxVBoxVBox", "virtualbox" },
		{ "bhyve bhyve", "bhyve" }, { "ACRNACRNACRN", "acrn" },
		{ "QNXQVMBSQG", "qnx" }, { "lrpepyh  vr", "parallels" },
		{ "prl hyperv", "parallels" }, { "TCGTCGTCGTCG", RG_VIRT_QEMU_TCG },
	};
	char s[13];
	const char *p = sig;
	size_t n;

	while (*p == ' ')
		p++;
	snprintf(s, sizeof(s), "%s", p);
	for (n = strlen(s); n && s[n - 1] == ' '; n--)
		s[n - 1] = '\0';
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(s, tab[i].sig))
			return tab[i].name;
	return NULL;
}

/* DMI vendor/product -> hypervisor name, NULL when they name no virtual machine. */
static const char *from_dmi(const char *vendor, const char *product)
{
	if (!strcmp(vendor, "Amazon EC2"))
		return strstr(product, ".metal") ? "none" : "nitro";	/* c7g.metal, c8g.metal-24xl */
	if (!strcmp(vendor, "QEMU"))
		return strstr(product, "KVM") ? "kvm" : "qemu";
	if (!strcmp(vendor, "Microsoft Corporation") && strstr(product, "Virtual Machine"))
		return "hyperv";
	if (strstr(vendor, "VMware"))
		return "vmware";
	if (!strcmp(vendor, "Xen"))
		return "xen";
	if (!strcmp(vendor, "innotek GmbH") || strstr(product, "VirtualBox"))
		return "virtualbox";
	if (strstr(vendor, "Parallels"))
		return "parallels";
	if (!strcmp(vendor, "Google") && strstr(product, "Google Compute Engine"))
		return "kvm";
	if (!strcmp(vendor, "Alibaba Cloud") || strstr(product, "OpenStack") ||
	    strstr(product, "KVM"))
		return "kvm";
	return NULL;
}

/*
 * /proc/cpuinfo written for another architecture than the one this binary
 * runs on: qemu-user passes the host's file through (an arm64 kernel always
 * writes "CPU implementer", an x86 one "vendor_id").
 */
static bool cpuinfo_foreign(const char *root, bool x86)
{
	char buf[8192];
	bool arm, intel;

	if (!rd(root, "/proc/cpuinfo", buf, sizeof(buf)))
		return false;
	arm = strstr(buf, "CPU implementer") != NULL;
	intel = strstr(buf, "vendor_id") != NULL;
	return x86 ? arm && !intel : intel && !arm;
}

/* MIDR_EL1 of CPU 0 as the kernel shows it in sysfs. */
static bool sysfs_midr(const char *root, uint32_t *midr)
{
	char buf[64];
	unsigned long long v;

	if (!rd(root, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", buf, sizeof(buf)) ||
	    sscanf(buf, "%llx", &v) != 1)
		return false;
	*midr = (uint32_t)v;
	return true;
}

/*
 * An arm64 core PMU in sysfs that counts cycles but not instructions:
 * INST_RETIRED is architecturally required of PMUv3 hardware, and qemu's TCG
 * offers it only with -icount, so this is qemu's emulated PMU.
 */
static bool pmu_without_inst_retired(const char *root)
{
	char path[512];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices", root);
	dir = opendir(path);
	if (!dir)
		return false;
	while ((d = readdir(dir)) && !found) {
		char ev[512];

		if (strncmp(d->d_name, "armv8_", 6))
			continue;
		snprintf(ev, sizeof(ev), "/sys/bus/event_source/devices/%s/events/", d->d_name);
		found = exists(root, strcat(strcpy(path, ev), "cpu_cycles")) &&
			!exists(root, strcat(strcpy(path, ev), "inst_retired"));
	}
	closedir(dir);
	return found;
}

void rg_env_virt_decide(const char *root, const struct rg_virt_cpu *cpu, char *out, size_t len)
{
	char vendor[128] = "", product[128] = "", buf[512], w[32];
	const char *name = NULL;
	bool have_dmi;
	uint32_t midr = 0;
	bool have_midr;

	if (!root)
		root = "";
	/* 1. User-mode emulation: the kernel's files describe another CPU. */
	if (cpuinfo_foreign(root, cpu->x86)) {
		snprintf(out, len, "%s", RG_VIRT_QEMU_USER);
		return;
	}
	have_midr = !cpu->x86 && sysfs_midr(root, &midr);
	if (!cpu->x86 && cpu->mrs_midr_known && RG_MIDR_IMPLEMENTER(cpu->mrs_midr) == 0 &&
	    (!have_midr || RG_MIDR_IMPLEMENTER(midr) != 0)) {
		/* mrs gives qemu's "max" CPU, the kernel a real (or no) one */
		snprintf(out, len, "%s", RG_VIRT_QEMU_USER);
		return;
	}

	have_dmi = rd(root, "/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	rd(root, "/sys/class/dmi/id/product_name", product, sizeof(product));

	/* 2. What the kernel says about the hypervisor it found (Xen). */
	if (rd(root, "/sys/hypervisor/type", buf, sizeof(buf))) {
		word(buf, w, sizeof(w));
		if (w[0]) {
			snprintf(out, len, "%s", w);
			return;
		}
	}

	if (cpu->x86) {
		/* 3. x86: CPUID.1:ECX[31] and the hypervisor leaf, DMI for the cloud. */
		if (!cpu->hv_bit) {
			snprintf(out, len, "none");
			return;
		}
		name = from_cpuid_sig(cpu->hv_sig);
		if (name && !strcmp(name, "kvm") && have_dmi && !strcmp(vendor, "Amazon EC2"))
			name = "nitro";
		if (!name && have_dmi)
			name = from_dmi(vendor, product);
		if (!name) {
			char sig[13];

			word(cpu->hv_sig, sig, sizeof(sig));
			if (sig[0])
				snprintf(out, len, "hypervisor %s", sig);
			else
				snprintf(out, len, "unknown");
			return;
		}
		snprintf(out, len, "%s", name);
		return;
	}

	/* 4. arm64: qemu's "max" CPU has the software-use implementer 0x00. */
	if (have_midr && RG_MIDR_IMPLEMENTER(midr) == 0) {
		snprintf(out, len, "%s", RG_VIRT_QEMU_TCG);
		return;
	}
	/* 5. arm64: a hypervisor node in the device tree (Xen puts one there). */
	if (rd(root, "/proc/device-tree/hypervisor/compatible", buf, sizeof(buf))) {
		word(buf, w, sizeof(w));
		snprintf(out, len, "%s", strstr(buf, "xen") ? "xen" : w[0] ? w : "unknown");
		return;
	}
	/* 6. arm64: DMI (UEFI machines: clouds, qemu with firmware). */
	if (have_dmi)
		name = from_dmi(vendor, product);
	/* 7. arm64: qemu's virt board booted without firmware (no DMI). */
	if (!name && rd(root, "/proc/device-tree/compatible", buf, sizeof(buf)) &&
	    strstr(buf, "linux,dummy-virt"))
		name = "qemu";
	if (name && !strcmp(name, "qemu") && pmu_without_inst_retired(root))
		name = RG_VIRT_QEMU_TCG;
	if (name) {
		snprintf(out, len, "%s", name);
		return;
	}
	/* Real hardware says who made it; with nothing readable we cannot tell. */
	if (have_dmi || have_midr || exists(root, "/proc/device-tree/compatible"))
		snprintf(out, len, "none");
	else
		snprintf(out, len, "unknown");
}

bool rg_env_virt_emulated(const char *virt)
{
	return virt && !strncmp(virt, "emulated", 8);
}
