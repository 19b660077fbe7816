/* SPDX-License-Identifier: MIT */
/* The kernel types trig.bpf.c uses, written by hand (not dumped from any kernel: the build depends on no machine), CO-RE relocatable. */
#ifndef RG_VMLINUX_H
#define RG_VMLINUX_H

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u32 __wsum;
typedef _Bool bool;
enum { false = 0, true = 1 };

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)
/* raw_tp programs' context (include/uapi/linux/bpf.h) */
struct bpf_raw_tracepoint_args {
	__u64 args[0];
};
#pragma clang attribute pop

#endif
