#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rgbench bpf's syscall-triggered raw_tp rate against the kernel's own bench (trig-rawtp, 6.1:
producers loop on syscall(getpgid), a raw_tp program on sys_enter counts getpgid in one shared
atomic), the two alternated in one session on the same CPU; prints each round and the ratio.

usage: compare.py RGBENCH_BPF KERNEL_BENCH [--rounds N] [--duration S] [--cpu C] [--variants LIST]
Variants (rgbench options per round, each beside its own kernel bench run):
  same:    --count atomic --all-tasks: the very program work of the kernel's bench
  default: rgbench bpf's defaults (percpu count, this process only: one helper call more)
Exit 0 when every run parsed (the ratio is reported, never asserted: on a shared VM it moves by
more than the 2% it is about), 77 when not root or the bench cannot attach raw_tp, 1 otherwise.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

VARIANTS = {
    "same": ["--count", "atomic", "--all-tasks"],
    "default": [],
}
ITER = re.compile(r"^Iter\s+(\d+).*?hits\s+([0-9.]+)M/s")


def task_ns(pid, tid):
    """Time the thread has run on a CPU, ns (schedstat's first field), or None when it is gone."""
    try:
        return int(open("/proc/%d/task/%d/schedstat" % (pid, tid)).read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def busiest_task(pid):
    best, tid = -1, None
    for t in os.listdir("/proc/%d/task" % pid):
        ns = task_ns(pid, int(t))
        if ns is not None and ns > best and int(t) != pid:
            best, tid = ns, int(t)
    return tid


def kernel_bench(bench, cpu, warmup, duration):
    """Median M/s of the kernel bench's 1 s samples after its warm-up, and its producer's CPU
    ns per event over those samples (schedstat read as each sample's line is printed)."""
    p = subprocess.Popen(["stdbuf", "-oL", bench, "-w%d" % warmup, "-d%d" % duration, "-p1",
                          "--prod-affinity", str(cpu), "trig-rawtp"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rates, marks, out, prod = {}, {}, [], None
    for line in p.stdout:
        out.append(line)
        m = ITER.match(line)
        if not m:
            continue
        i = int(m[1])
        if prod is None or task_ns(p.pid, prod) is None:
            prod = busiest_task(p.pid)
        marks[i] = task_ns(p.pid, prod) if prod else None
        rates[i] = float(m[2])
    err = p.stderr.read()
    rc = p.wait(timeout=60)
    vals = [v for i, v in sorted(rates.items()) if i >= warmup]
    if rc or not vals:
        sys.stderr.write("".join(out)[-2000:] + err[-2000:])
        raise RuntimeError("kernel bench failed (exit %d)" % rc)
    # The events of sample i happen between the lines of samples i-1 and i (1 s each): CPU
    # time from the first good mark at or after the warm-up's last line to the last one.
    good = sorted(i for i, ns in marks.items() if ns is not None and i >= warmup - 1)
    cpu_ns = None
    if len(good) >= 2:
        a, b = good[0], good[-1]
        ev = sum(rates[i] for i in range(a + 1, b + 1)) * 1e6
        cpu_ns = (marks[b] - marks[a]) / ev if ev else None
    return statistics.median(vals), cpu_ns


def rgbench(binary, cpu, warmup, duration, extra):
    """Median M/s of rgbench bpf's raw_tp row (A windows) and its producers' CPU ns per event."""
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "r.json")
        cmd = [binary, "--mode", "syscall", "--attach", "raw_tp", "--cpus", str(cpu),
               "--warmup", str(warmup), "--duration", "1", "--repetitions", str(duration),
               "-qq", "--json", js] + extra
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60 + 4 * duration)
        if p.returncode == 77:
            print("SKIP: " + p.stderr.strip())
            sys.exit(77)
        rows = json.load(open(js))["results"] if p.returncode == 0 else []
        if not rows or rows[0]["status"] not in ("ok", "noisy"):
            sys.stderr.write(p.stderr + json.dumps(rows)[:2000])
            raise RuntimeError("rgbench bpf failed (exit %d): %s" % (p.returncode, " ".join(cmd)))
        return rows[0]["mops_median"], rows[0].get("cpu_ns_median")


def fmt(v, d=1):
    return "n/a" if v is None else "%.*f" % (d, v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rgbench")
    ap.add_argument("bench")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--duration", type=int, default=5, help="samples of 1 s per run (both)")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--cpu", type=int, default=-1, help="CPU for the producer (default: the last allowed)")
    ap.add_argument("--variants", default="same,default")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root (BPF programs)")
        return 77
    cpu = a.cpu if a.cpu >= 0 else max(os.sched_getaffinity(0))
    variants = a.variants.split(",")
    for v in variants:
        if v not in VARIANTS:
            ap.error("unknown variant %r (%s)" % (v, ",".join(VARIANTS)))
    print("kbench: %d round(s) on CPU %d, %d x 1 s samples after %d s warm-up per run; "
          "ratio = rgbench M/s / kernel bench M/s (medians of the 1 s samples)" %
          (a.rounds, cpu, a.duration, a.warmup))
    ratios = {v: [] for v in variants}
    cpu_ratios = {v: [] for v in variants}
    for i in range(a.rounds):
        for v in variants:
            # alternate which runs first, so drift falls on both alike
            if i % 2:
                rg, rg_cpu = rgbench(a.rgbench, cpu, a.warmup, a.duration, VARIANTS[v])
                kb, kb_cpu = kernel_bench(a.bench, cpu, a.warmup, a.duration)
            else:
                kb, kb_cpu = kernel_bench(a.bench, cpu, a.warmup, a.duration)
                rg, rg_cpu = rgbench(a.rgbench, cpu, a.warmup, a.duration, VARIANTS[v])
            ratios[v].append(rg / kb)
            if rg_cpu and kb_cpu:
                cpu_ratios[v].append(kb_cpu / rg_cpu)
            print("round %d %-8s kernel %.3f M/s (CPU %s ns/event)  rgbench %.3f M/s (CPU %s ns/event)"
                  "  ratio %.3f, by CPU time %s" %
                  (i + 1, v, kb, fmt(kb_cpu), rg, fmt(rg_cpu), rg / kb,
                   fmt(kb_cpu / rg_cpu, 3) if rg_cpu and kb_cpu else "n/a"), flush=True)
    for v in variants:
        r, c = ratios[v], cpu_ratios[v]
        print("kbench: %-8s rate ratio median %.3f [%.3f, %.3f]; by producer CPU time (kernel ns / rgbench ns)"
              " median %s [%s, %s] over %d rounds (%s)" %
              (v, statistics.median(r), min(r), max(r), fmt(statistics.median(c), 3) if c else "n/a",
               fmt(min(c), 3) if c else "n/a", fmt(max(c), 3) if c else "n/a", len(r),
               " ".join(VARIANTS[v]) or "defaults"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
