#!/bin/sh
# SPDX-License-Identifier: MIT
# What one boot of rgbench ab runs inside its guest (busybox sh, cwd /payload): rgbench bpf, rgbench kmod --scenarios loop,tramp and the user suite, each its own result file and exit code in /out.
# ab.env (written by ab.sh): RG_AB_USER (1: the user suite too), RG_AB_LABEL, RG_AB_BOOT, RG_RUN_ID:
# the last three are exported, so every suite's rows carry ab_label, ab_boot and the command's one run id.
# RG_AB_GUEST_ARGS_BPF/_KMOD/_USER there replace each suite's default options (tests make them short).
# ./bench (the kernel's trigger bench, rgbench ab --kbench), when there, runs its trig-* cases.
set -u
. ./ab.env
export RG_AB_LABEL RG_AB_BOOT RG_RUN_ID
uname -r >/out/uname
grep -q . /proc/sys/net/core/bpf_jit_enable 2>/dev/null && cat /proc/sys/net/core/bpf_jit_enable >/out/bpf_jit
[ -r /sys/kernel/btf/vmlinux ] && echo yes >/out/btf
echo "== $RG_AB_BOOT $RG_AB_LABEL $(uname -r): rgbench bpf"
./rgbench bpf ${RG_AB_GUEST_ARGS_BPF:---duration 20ms --warmup 10ms --repetitions 3 --passes 1} --quiet \
  --out /out/bpf.csv --json /out/bpf.json 2>/out/bpf.err
echo $? >/out/rc_bpf
if [ -f ./rgbench_kmod.ko ]; then
  echo "== rgbench kmod --scenarios loop,tramp"
  ./rgbench kmod --module ./rgbench_kmod.ko --scenarios loop,tramp \
    ${RG_AB_GUEST_ARGS_KMOD:---batch 2000 --repetitions 3 --irq-iters 100} --quiet \
    --out /out/kmod.csv --json /out/kmod.json 2>/out/kmod.err
  echo $? >/out/rc_kmod
else
  echo "${RG_AB_NOMOD:-no module for this kernel}" >/out/kmod.err
fi
if [ "$RG_AB_USER" = 1 ]; then
  echo "== rgbench (the user suite)"
  ./rgbench --quick --no-bpf ${RG_AB_GUEST_ARGS_USER:---repetitions 3 --duration 2ms} --quiet \
    --out /out/user.csv --json /out/user.json 2>/out/user.err
  echo $? >/out/rc_user
fi
if [ -x ./bench ]; then
  # The kernel's own trigger bench (selftests/bpf bench), when ab was given one
  # (RG_AB_KBENCH): each trig-* the kernel allows, its "hits X ± Y M/s" summary kept.
  echo "== the kernel's bench: ${RG_AB_KBENCH_TESTS:-trig-fentry trig-fexit trig-rawtp trig-tp trig-kprobe trig-fmodret}"
  for t in ${RG_AB_KBENCH_TESTS:-trig-fentry trig-fexit trig-rawtp trig-tp trig-kprobe trig-fmodret}; do
    ./bench -w1 -d${RG_AB_KBENCH_SECONDS:-3} -p1 -a "$t" >/out/kbench-$t.txt 2>&1
    echo "$t $?" >>/out/kbench.rc
  done
fi
dmesg >/out/dmesg.txt 2>/dev/null
true
