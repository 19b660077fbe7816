// SPDX-License-Identifier: MIT
/* The virt decision on fake /proc and /sys trees: every hypervisor, emulator and bare-metal path, and this machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/env.h"

#include "check.h"

static char root[256];

/* Write root/<rel> holding len bytes of text (dirs created). */
static void putn(const char *rel, const char *text, size_t len)
{
	rg_test_put_file(root, rel, text, len);
}

static void put(const char *rel, const char *text)
{
	putn(rel, text, strlen(text));
}

static void fresh_root(void)
{
	rg_test_fresh_dir(root, sizeof(root), "/tmp/rg-virt-test.XXXXXX");
}

/* /proc/cpuinfo excerpts as the two kernels write them. */
static const char x86_cpuinfo[] =
	"processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nflags\t\t: fpu vme hypervisor\n";
static const char arm_cpuinfo[] =
	"processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd atomics cpuid\n"
	"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd4f\n";

#define MIDR_PATH "sys/devices/system/cpu/cpu0/regs/identification/midr_el1"

static void expect(const struct rg_virt_cpu *cpu, const char *want, const char *what)
{
	char got[64];

	memset(got, 'x', sizeof(got));
	rg_env_virt_decide(root, cpu, got, sizeof(got));
	CHECK(!strcmp(got, want), "%s: virt '%s', expected '%s'", what, got, want);
}

static struct rg_virt_cpu x86(bool hv, const char *sig)
{
	struct rg_virt_cpu c;

	memset(&c, 0, sizeof(c));
	c.x86 = true;
	c.hv_bit = hv;
	/* as CPUID returns it: 12 bytes, NUL padded (KVM's "KVMKVMKVM\0\0\0") */
	strncpy(c.hv_sig, sig, 12);
	return c;
}

static struct rg_virt_cpu arm(bool mrs_known, uint32_t mrs)
{
	struct rg_virt_cpu c;

	memset(&c, 0, sizeof(c));
	c.mrs_midr_known = mrs_known;
	c.mrs_midr = mrs;
	return c;
}

/* The DMI names: vendor (NULL: the one there) and product, each a line. */
static void dmi(const char *vendor, const char *product)
{
	char line[128];

	if (vendor) {
		snprintf(line, sizeof(line), "%s\n", vendor);
		put("sys/class/dmi/id/sys_vendor", line);
	}
	snprintf(line, sizeof(line), "%s\n", product);
	put("sys/class/dmi/id/product_name", line);
}

static void test_x86(void)
{
	/* CPUID: the hypervisor bit and signature, what they give without DMI */
	static const struct { bool hv; const char *sig, *want, *what; } cpuid[] = {
		{ false, "", "none", "x86 without the hypervisor bit" },
		{ true, "KVMKVMKVM", "kvm", "x86 KVM signature (firecracker, qemu -accel kvm)" },
		{ true, "Microsoft Hv", "hyperv", "x86 Hyper-V" },
		{ true, "VMwareVMware", "vmware", "x86 VMware" },
		{ true, "XenVMMXenVMM", "xen", "x86 Xen HVM" },
		{ true, "TCGTCGTCGTCG", RG_VIRT_QEMU_TCG, "x86 qemu TCG signature" },
		{ true, " lrpepyh  vr", "parallels", "x86 Parallels" },
		{ true, "FooBarBazQux", "hypervisor foobarbazqux", "x86 unknown signature" },
		{ true, "", "unknown", "x86 hypervisor bit, no signature, no DMI" },
	};
	struct rg_virt_cpu c;

	fresh_root();
	put("proc/cpuinfo", x86_cpuinfo);
	for (size_t i = 0; i < ARRAY_SIZE(cpuid); i++) {
		c = x86(cpuid[i].hv, cpuid[i].sig);
		expect(&c, cpuid[i].want, cpuid[i].what);
	}
	dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)");
	expect(&c, "qemu", "x86 hypervisor bit, no signature, qemu's DMI");

	/* EC2: KVM signature, DMI names Amazon. */
	dmi("Amazon EC2", "m7i.large");
	c = x86(true, "KVMKVMKVM");
	expect(&c, "nitro", "x86 EC2 (Nitro)");
	c = x86(false, "");
	expect(&c, "none", "x86 EC2 metal (no hypervisor bit)");

	/* Xen PV: the kernel's /sys/hypervisor wins. */
	fresh_root();
	put("proc/cpuinfo", x86_cpuinfo);
	put("sys/hypervisor/type", "xen\n");
	c = x86(false, "");
	expect(&c, "xen", "x86 Xen PV (/sys/hypervisor/type)");

	/* An x86-64 binary under qemu-user on an arm64 host. */
	fresh_root();
	put("proc/cpuinfo", arm_cpuinfo);
	c = x86(true, "KVMKVMKVM");
	expect(&c, RG_VIRT_QEMU_USER, "x86 binary, arm64 kernel's cpuinfo");
}

static void test_arm64_emulated(void)
{
	struct rg_virt_cpu c;

	/* qemu-user on this x86 host: cpuinfo is the host's, no MIDR in sysfs. */
	fresh_root();
	put("proc/cpuinfo", x86_cpuinfo);
	c = arm(true, 0x000f0510);
	expect(&c, RG_VIRT_QEMU_USER, "arm64 binary, x86 kernel's cpuinfo");
	c = arm(false, 0);
	expect(&c, RG_VIRT_QEMU_USER, "arm64 binary, x86 cpuinfo, no mrs");

	/* qemu-user -cpu max on an arm64 host: mrs says qemu, sysfs a real core. */
	fresh_root();
	put("proc/cpuinfo", arm_cpuinfo);
	put(MIDR_PATH, "0x00000000410fd4f0\n");
	c = arm(true, 0x000f0510);
	expect(&c, RG_VIRT_QEMU_USER, "arm64 host, mrs gives qemu's max CPU");
	/* the same CPU by mrs and by sysfs: a real Neoverse V2, bare metal */
	c = arm(true, 0x410fd4f0);
	expect(&c, "none", "arm64 bare metal, MIDR in sysfs");

	/* qemu-system-aarch64 -cpu max (TCG), booted with -kernel: implementer 0x00. */
	fresh_root();
	put("proc/cpuinfo", arm_cpuinfo);
	put(MIDR_PATH, "0x00000000000f0510\n");
	putn("proc/device-tree/compatible", "linux,dummy-virt", sizeof("linux,dummy-virt"));
	c = arm(true, 0x000f0510);
	expect(&c, RG_VIRT_QEMU_TCG, "qemu-system-aarch64 -cpu max");

	/* -cpu cortex-a72 (TCG): real MIDR, qemu's board, PMU without inst_retired. */
	put(MIDR_PATH, "0x00000000410fd083\n");
	c = arm(true, 0x410fd083);
	expect(&c, "qemu", "qemu virt board, real MIDR, no PMU: KVM or TCG unknown");
	put("sys/bus/event_source/devices/armv8_cortex_a72/events/cpu_cycles", "event=0x0011\n");
	expect(&c, RG_VIRT_QEMU_TCG, "qemu virt board, PMU counts cycles but not instructions");
	put("sys/bus/event_source/devices/armv8_cortex_a72/events/inst_retired", "event=0x0008\n");
	expect(&c, "qemu", "qemu virt board, full PMU (KVM, or TCG with -icount)");
}

static void test_arm64_hypervisors(void)
{
	/* DMI, in this order: vendor (NULL: the one before), product, what it gives */
	static const struct { const char *vendor, *product, *want, *what; } by_dmi[] = {
		/* Graviton 4 (Neoverse V2) on EC2 */
		{ "Amazon EC2", "c8g.xlarge", "nitro", "arm64 EC2 instance" },
		{ NULL, "c8g.metal-24xl", "none", "arm64 EC2 metal size" },
		{ NULL, "c7g.metal", "none", "arm64 EC2 metal" },
		/* qemu/KVM with UEFI firmware (e.g. OpenStack, libvirt): DMI product */
		{ "QEMU", "KVM Virtual Machine", "kvm", "arm64 qemu/KVM with firmware" },
		{ "Microsoft Corporation", "Virtual Machine", "hyperv", "arm64 Azure (Cobalt, Ampere) VM" },
		{ "Google", "Google Compute Engine", "kvm", "arm64 GCE (Axion, Tau T2A)" },
		{ "WIWYNN", "Mt.Jade Server System", "none", "arm64 Ampere server, bare metal" },
	};
	struct rg_virt_cpu c = arm(true, 0x410fd4f0);

	fresh_root();
	put("proc/cpuinfo", arm_cpuinfo);
	put(MIDR_PATH, "0x00000000410fd4f0\n");
	for (size_t i = 0; i < ARRAY_SIZE(by_dmi); i++) {
		dmi(by_dmi[i].vendor, by_dmi[i].product);
		expect(&c, by_dmi[i].want, by_dmi[i].what);
	}

	/* Xen on arm64: the device tree's hypervisor node. */
	fresh_root();
	put("proc/cpuinfo", arm_cpuinfo);
	put(MIDR_PATH, "0x00000000410fd0c0\n");
	putn("proc/device-tree/hypervisor/compatible", "xen,xen-4.17\0xen,xen", 21);
	expect(&c, "xen", "arm64 Xen guest (device tree)");

	/* A board with only a device tree (no DMI): bare metal. */
	fresh_root();
	put("proc/cpuinfo", arm_cpuinfo);
	putn("proc/device-tree/compatible", "raspberrypi,4-model-b\0brcm,bcm2711", 35);
	c = arm(false, 0);
	expect(&c, "none", "arm64 board, device tree only");

	/* Nothing readable: cannot tell. */
	fresh_root();
	expect(&c, "unknown", "arm64, empty /proc and /sys");
}

static void test_emulated_and_live(void)
{
	struct rg_env env;
	const char *want = getenv("RG_EXPECT_VIRT");

	CHECK(rg_env_virt_emulated(RG_VIRT_QEMU_USER), "qemu-user is emulated");
	CHECK(rg_env_virt_emulated(RG_VIRT_QEMU_TCG), "qemu-tcg is emulated");
	CHECK(!rg_env_virt_emulated("kvm") && !rg_env_virt_emulated("none") &&
	      !rg_env_virt_emulated("qemu") && !rg_env_virt_emulated("unknown") &&
	      !rg_env_virt_emulated(NULL), "only emulated values are emulated");

	rg_env_collect(&env);
	printf("this machine: virt = %s\n", env.virt);
	CHECK(env.virt[0] != '\0', "virt is never empty");
	if (want && *want)
		CHECK(!strcmp(env.virt, want), "this machine: virt '%s', expected '%s'", env.virt, want);
}

/* The input policy under the fake tree: a FIFO where a file should be is skipped, never waited on. */
static void test_fifo(void)
{
	struct rg_virt_cpu c = x86(true, "");
	char path[512];

	fresh_root();
	put("sys/class/dmi/id/product_name", "Standard PC\n");
	snprintf(path, sizeof(path), "%s/sys/class/dmi/id/sys_vendor", root);
	CHECK(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/sys/hypervisor", root);
	CHECK(mkdir(path, 0700) == 0, "mkdir");
	snprintf(path, sizeof(path), "%s/sys/hypervisor/type", root);
	CHECK(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
	alarm(20);	/* a blocking open fails the test instead of hanging it */
	expect(&c, "unknown", "x86 hypervisor bit, FIFOs for DMI and /sys/hypervisor/type");
	alarm(0);
}

int main(void)
{
	test_x86();
	test_arm64_emulated();
	test_arm64_hypervisors();
	test_emulated_and_live();
	test_fifo();
	if (rg_test_rm_tree(root))
		return 1;
	return rg_test_done("test_virt");
}
