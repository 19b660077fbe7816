// SPDX-License-Identifier: MIT
/*
 * rg-progfd: the guest test's probe of the module's debugfs prog (qemu_kmod.sh):
 * loads one trivial BPF program of a type the module must refuse with the
 * bpf() syscall, writes "FD 0 128 64" to PROG_FILE, and reports the errno.
 *
 *   rg-progfd socket PROG_FILE      a socket filter (BPF_PROG_TYPE_SOCKET_FILTER)
 *   rg-progfd tracepoint PROG_FILE  a tracepoint program (BPF_PROG_TYPE_TRACEPOINT)
 *   rg-progfd rawtp-nobss PROG_FILE a raw_tp program of the right type, no .bss map
 *   rg-progfd notbpf PROG_FILE      an open file that is no BPF program (/dev/null)
 *   rg-progfd ids                   the ids of every BPF program loaded
 *                                   (BPF_PROG_GET_NEXT_ID), one line, "none" if none
 *   rg-progfd ids-with-one          the same while a socket filter of its own is
 *                                   loaded: the listing's control (it must show one more)
 *
 * Prints one line, "KIND: refused: ERRNO_NAME (message)" or "KIND: accepted",
 * and exits 0 when the module refused with EINVAL, 1 when it accepted or
 * refused with another errno, 2 on bad usage, 3 when the program could not be
 * loaded (the line says why). The program stays loaded (its fd open) until the
 * write returns, so the module could take a reference if it wrongly would.
 * Static, built for the guest's architecture; no libbpf.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* r0 = 0; exit: valid for every program type used here. */
static int load(enum bpf_prog_type type, char *log, size_t loglen)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (unsigned long)insns;
	a.insn_cnt = 2;
	a.license = (unsigned long)"GPL";
	a.log_buf = (unsigned long)log;
	a.log_size = (unsigned)loglen;
	a.log_level = 1;
	return (int)sys_bpf(BPF_PROG_LOAD, &a);
}

static int list_ids(void)
{
	union bpf_attr a;
	unsigned n = 0;

	memset(&a, 0, sizeof(a));
	printf("ids:");
	for (;;) {
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &a)) {
			if (errno == ENOENT)
				break;
			printf(" error: BPF_PROG_GET_NEXT_ID: %s\n", strerror(errno));
			return 1;
		}
		printf(" %u", a.next_id);
		a.start_id = a.next_id;
		n++;
	}
	printf("%s\n", n ? "" : " none");
	return 0;
}

int main(int argc, char **argv)
{
	static char log[4096];
	const char *kind = argc > 1 ? argv[1] : "";
	char req[64];
	int fd, pf, e;
	ssize_t w;

	if (argc == 2 && !strcmp(kind, "ids"))
		return list_ids();
	if (argc == 2 && !strcmp(kind, "ids-with-one")) {
		fd = load(BPF_PROG_TYPE_SOCKET_FILTER, log, sizeof(log));
		if (fd < 0) {
			printf("ids-with-one: cannot load: %s\n", strerror(errno));
			return 3;
		}
		e = list_ids();
		close(fd);
		return e;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: rg-progfd socket|tracepoint|rawtp-nobss|notbpf PROG_FILE | ids | ids-with-one\n");
		return 2;
	}
	if (!strcmp(kind, "socket"))
		fd = load(BPF_PROG_TYPE_SOCKET_FILTER, log, sizeof(log));
	else if (!strcmp(kind, "tracepoint"))
		fd = load(BPF_PROG_TYPE_TRACEPOINT, log, sizeof(log));
	else if (!strcmp(kind, "rawtp-nobss"))
		fd = load(BPF_PROG_TYPE_RAW_TRACEPOINT, log, sizeof(log));
	else if (!strcmp(kind, "notbpf"))
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	else {
		fprintf(stderr, "rg-progfd: unknown kind '%s'\n", kind);
		return 2;
	}
	if (fd < 0) {
		printf("%s: cannot load: %s (%.200s)\n", kind, strerror(errno), log);
		return 3;
	}
	pf = open(argv[2], O_WRONLY | O_CLOEXEC);
	if (pf < 0) {
		printf("%s: cannot open %s: %s\n", kind, argv[2], strerror(errno));
		return 3;
	}
	snprintf(req, sizeof(req), "%d 0 128 64", fd);
	w = write(pf, req, strlen(req));
	e = errno;
	close(pf);
	close(fd);
	if (w >= 0) {
		printf("%s: accepted\n", kind);
		return 1;
	}
	printf("%s: refused: %s (%s)\n", kind, e == EINVAL ? "EINVAL" : e == EBADF ? "EBADF" :
	       e == EOPNOTSUPP ? "EOPNOTSUPP" : "other", strerror(e));
	return e == EINVAL ? 0 : 1;
}
