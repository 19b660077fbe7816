#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rgbench ab's tables: per benchmark row each kernel's median over its boots, the change against
the first kernel with its interval and p (the boot is the unit of replication), from an ab folder
(manifest.csv and one boot-NN-LABEL.json per boot); also the per-boot merge and failure line.

  ab_table.py [--format text|markdown|commit-log] DIR   the tables of DIR
  ab_table.py --merge GUEST_OUT FILE LABEL BOOT           the guest's result files as one boot file
  ab_table.py --why BOOT_DIR VM_EXIT                      one line: why a boot failed (or nothing)
  ab_table.py --predict DIR RGBENCH                       the prediction check: rgbench report's
                                                          two-boot check, both ways per pair

Statistics (over boots, never over the samples inside one boot):
  median     the median of the boots' values (each boot's value is its row's median)
  interval   the lowest and highest boot; with n boots it holds the median with probability
             1 - 2 * 0.5**n (n=2: 50%, n=5: 94%), said beside the table
  change     median(kernel) / median(first) - 1; its interval the lowest and highest ratio of
             any boot of the kernel to any boot of the first
  p          exact two-sided permutation test of the boots' means (every split of the pooled
             boots; n=2 against 2 cannot go below 1/3)
Under emulation (the manifest's accel is tcg) every timing is marked emulated and no change is
called: the column says "not called (emulated)". A kernel without BPF JIT (its boots' reason
says so, see why()) has its bpf and kbench figures, the BPF interpreter's, shown as "no JIT":
never compared to a JIT's. A kernel's cell with no figure names its rows' status (skipped).
Exit: 0, 1 unreadable input (one line), 2 usage."""
import csv
import glob
import itertools
import json
import os
import re
import statistics
import sys

ME = "rgbench ab"


def die(msg, code=1):
    print(f"{ME}: {msg}", file=sys.stderr)
    sys.exit(code)


# ---- one boot: the guest's files merged, and why a boot failed ----

SUITES = ("bpf", "kmod", "user")


def merge(gout, dest, label, boot):
    """The guest's bpf.json, kmod.json, user.json and the kernel bench's rows as one result file:
    one run (the guest gave every suite the ab command's RG_RUN_ID), each row carrying its
    ab_label and ab_boot, so that rgbench report and compare read it."""
    doc, rows = None, []
    for s in SUITES:
        p = os.path.join(gout, s + ".json")
        if not os.path.exists(p):
            continue
        d = json.load(open(p, encoding="utf-8"))
        if doc is None:
            doc = {k: v for k, v in d.items() if k != "results"}
        elif d.get("run_id") != doc.get("run_id"):
            die(f"boot {boot} ({label}): {s}.json is run {d.get('run_id')}, not {doc.get('run_id')} "
                "(the guest did not give every suite RG_RUN_ID)")
        rows += d.get("results", [])
    if doc is None or not rows:
        die(f"boot {boot} ({label}): no result file came back from the guest")
    rows += kbench_rows(gout, rows[0])
    doc["results"] = rows
    tmp = dest + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(tmp, dest)


KB_SUMMARY = re.compile(r"Summary: hits\s+([0-9.]+) \u00b1 ([0-9.]+)M/s")

# The columns a kbench row takes from the boot's other rows: the run and the machine.
KB_KEEP = ("schema_version", "rgbench_version", "run_id", "ab_label", "ab_boot", "timestamp", "host",
           "arch", "cpu_vendor", "cpu_model", "cpu_part", "kernel", "virt", "lse", "rseq", "preempt")


def kbench_row(like, t):
    """A schema row of suite kbench for trigger bench t, its columns from `like` (a row of the
    same boot) where they are the run's and the machine's, else not measured."""
    r = {}
    for k, v in like.items():
        if k in KB_KEEP:
            r[k] = v
        elif isinstance(v, list):
            continue
        elif isinstance(v, bool) or isinstance(v, int):
            r[k] = 0
        elif isinstance(v, float) or v is None:
            r[k] = None
        elif isinstance(v, str):
            r[k] = ""
    na = "n/a: the kernel's bench (selftests/bpf bench)"
    r.update(suite="kbench", guard=t, role="n/a", scenario="trig", threads=1, batch=1, repetitions=1,
             runs=1, unit="ns/event", pinning="none", baseline="n/a", interleave="none", layout="n/a",
             events=na, pmu_table=na, counters=na)
    return r


def kbench_rows(gout, like):
    """The kernel's own bench (selftests/bpf bench) as schema rows of suite kbench: its summary's
    hits M/s (mops_median, mops_per_thread; ns_median = 1e3 / M/s) and ± (mops_stddev); a trig-*
    the kernel refused is skipped with the bench's first error line."""
    rows = []
    rcs = os.path.join(gout, "kbench.rc")
    if not os.path.exists(rcs):
        return rows
    for line in open(rcs, encoding="utf-8", errors="replace"):
        parts = line.split()
        if len(parts) != 2:
            continue
        t, rc = parts
        text = open(os.path.join(gout, f"kbench-{t}.txt"), encoding="utf-8", errors="replace").read() \
            if os.path.exists(os.path.join(gout, f"kbench-{t}.txt")) else ""
        m = KB_SUMMARY.search(text)
        r = kbench_row(like, t)
        if rc == "0" and m and float(m.group(1)) > 0:
            hits = float(m.group(1))
            r.update(status="ok", mops_median=hits, mops_per_thread=hits, mops_stddev=float(m.group(2)),
                     ns_median=1e3 / hits, reason="")
        else:
            lines = [l.strip() for l in text.splitlines() if l.strip()]
            err = next((l for l in lines if re.search(r"fail|error|unknown|not found|invalid", l, re.I)),
                       lines[-1] if lines else "no output")
            r.update(status="skipped", reason=f"bench exit {rc}: {err[:160]}", repetitions=0)
        rows.append(r)
    return rows


def first_line(path):
    try:
        for line in open(path, encoding="utf-8", errors="replace"):
            if line.strip():
                return line.strip()
    except OSError:
        pass
    return ""


def suite_error(out, s):
    """What a suite that failed said: its first row in error (suite/scenario/guard: reason), else
    the first line of its error output that is not a 'wrote FILE' line."""
    try:
        rows = json.load(open(os.path.join(out, s + ".json"), encoding="utf-8"))["results"]
    except (OSError, ValueError, KeyError, TypeError):
        rows = []
    bad = [r for r in rows if r.get("status") == "error"]
    if bad:
        r = bad[0]
        more = f" (and {len(bad) - 1} more rows in error)" if len(bad) > 1 else ""
        return f"{r.get('suite')}/{r.get('scenario')}/{r.get('guard')}: {r.get('reason') or 'error'}{more}"
    try:
        lines = open(os.path.join(out, s + ".err"), encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        lines = []
    said = [l.strip() for l in lines if l.strip() and not re.search(r": wrote ", l)]
    return said[0] if said else (lines[0].strip() if lines else "")


# What a kernel lacks, as why() says it (first in the boot's line); the table reads these words
# back from the manifest's reason: a kernel without the JIT runs BPF in the interpreter, whose
# figures are not set beside a JIT's.
NO_JIT = "no BPF JIT (no net.core.bpf_jit_enable)"
JIT_OFF = "its BPF JIT off (net.core.bpf_jit_enable=0)"
NO_BTF = "no BTF (/sys/kernel/btf/vmlinux)"


def interpreted(reason):
    """Whether a boot's manifest reason says its kernel ran BPF without the JIT."""
    return NO_JIT in (reason or "") or JIT_OFF in (reason or "")


def why(bdir, vm_exit):
    """One line when the boot failed or a suite of it did; nothing when all went well. What the
    kernel lacks (BPF JIT, BTF) comes first, then what the suites said."""
    out = os.path.join(bdir, "out")
    con = os.path.join(bdir, "console.log")
    text = open(con, encoding="utf-8", errors="replace").read() if os.path.exists(con) else ""
    m = re.search(r"Kernel panic - not syncing:.*", text)
    if m:
        return "the kernel panicked: " + m.group(0).strip()[:160]
    if vm_exit == 124:
        return "the guest did not finish within --timeout"
    if "@@RG-BEGIN" not in text:
        return f"the kernel did not boot to the guest's command (qemu/vm.sh exit {vm_exit})"
    lacks = []
    if os.path.exists(os.path.join(out, "uname")):
        jit = first_line(os.path.join(out, "bpf_jit"))
        if jit == "0":
            lacks.append(JIT_OFF)
        elif not jit:
            lacks.append(NO_JIT)
        if not os.path.exists(os.path.join(out, "btf")):
            lacks.append(NO_BTF)
    # rgbench bpf's rows (read once: the interpreter's count and the fentry line below)
    try:
        rows = json.load(open(os.path.join(out, "bpf.json"), encoding="utf-8"))["results"]
    except (OSError, ValueError, KeyError, TypeError):
        rows = []
    said = []
    if lacks:
        s = "the kernel has " + " and ".join(lacks)
        if lacks[0] in (NO_JIT, JIT_OFF):
            # with BTF its rows load and the interpreter times them: said, never compared
            ran = sum(1 for r in rows if r.get("status") in ("ok", "noisy"))
            s += (f": its BPF rows ran in the BPF interpreter ({ran} timed), none is "
                  "compared" if ran else ": none of its BPF rows is compared")
        said.append(s)
    for s in SUITES:
        rc = first_line(os.path.join(out, "rc_" + s))
        if rc and rc != "0":
            said.append(f"rgbench {s if s != 'user' else '(user suite)'} exit {rc}: {suite_error(out, s)[:200]}")
    if os.path.exists(os.path.join(out, "kmod.err")) and not os.path.exists(os.path.join(out, "rc_kmod")):
        said.append("no kmod rows: " + first_line(os.path.join(out, "kmod.err")))
    # the trigger bench's own case: no fentry row measured (the attach refused) is said; on a
    # kernel with BTF but no JIT the cause is the JIT: without CONFIG_BPF_JIT there is no BPF
    # trampoline (6.1's verifier then refuses the load with ENOMEM, a misleading errno)
    fentry = [r for r in rows if r.get("guard") == "fentry"]
    if fentry and not any(r.get("status") in ("ok", "noisy") for r in fentry):
        said.append(("fentry needs the BPF JIT (its trampoline): " if NO_JIT in lacks and NO_BTF not in lacks
                     else "") + "the trigger bench could not attach fentry: " +
                    (next((r.get("reason") for r in fentry if r.get("reason")), "") or "no reason given")[:160])
    if vm_exit not in (0,) and not said:
        said.append(f"the guest's command exited {vm_exit}")
    return "; ".join(said)


# ---- the tables ----

def read_manifest(d):
    p = os.path.join(d, "manifest.csv")
    try:
        rows = list(csv.DictReader(open(p, encoding="utf-8")))
    except OSError as e:
        die(f"{p}: {e.strerror}")
    need = {"boot", "label", "spec", "status", "result", "accel"}
    if not rows or not need <= set(rows[0]):
        die(f"{p}: not an ab manifest (columns {', '.join(sorted(need))} needed)")
    return rows


def value(r):
    """The row's figure and unit: events per second for the trigger bench, ns per pair else."""
    if r.get("suite") in ("bpf", "kbench") and isinstance(r.get("mops_median"), (int, float)):
        return float(r["mops_median"]), "M/s"
    if isinstance(r.get("ns_median"), (int, float)):
        return float(r["ns_median"]), "ns"
    return None, None


def key(r):
    """A benchmark: suite, scenario, guard, threads and the duty level (the duty scenario's rows
    differ by it alone)."""
    return (r.get("suite", ""), r.get("scenario", ""), r.get("guard", ""), int(r.get("threads") or 0),
            int(r.get("duty_ns") or 0))


def name(k):
    s, sc, g, t, duty = k
    return f"{s}/{sc}/{g} p={t}" + (f" duty={duty}" if duty else "")


def perm_p(a, b):
    """Exact two-sided permutation p of the difference of means, over all splits."""
    pool, na = a + b, len(a)
    obs = abs(statistics.fmean(a) - statistics.fmean(b))
    n = hit = 0
    for idx in itertools.combinations(range(len(pool)), na):
        s = set(idx)
        x = [pool[i] for i in s]
        y = [pool[i] for i in range(len(pool)) if i not in s]
        n += 1
        hit += abs(statistics.fmean(x) - statistics.fmean(y)) >= obs - 1e-12 * max(1.0, obs)
    return hit / n


def fmt(v):
    if v is None:
        return "n/a"
    a = abs(v)
    return f"{v:.4g}" if a < 1000 else f"{v:.0f}"


def build(d):
    man = read_manifest(d)
    labels, specs = [], {}
    for m in man:
        if m["label"] not in labels:
            labels.append(m["label"])
            specs[m["label"]] = m["spec"]
    emulated = any(m["accel"] != "kvm" for m in man)
    data = {}      # key -> label -> [values, one per boot]
    units = {}
    statuses = {}  # key -> label -> {status: count}
    releases = {}
    boots_used = {l: 0 for l in labels}
    nojit = {}     # label -> [boots whose kernel ran BPF without the JIT]
    for m in man:
        if not m["result"] or m["status"] not in ("ok", "partial"):
            continue
        p = os.path.join(d, m["result"])
        try:
            doc = json.load(open(p, encoding="utf-8"))
        except (OSError, ValueError) as e:
            die(f"{p}: {getattr(e, 'strerror', None) or e}")
        boots_used[m["label"]] += 1
        # a kernel without the BPF JIT: its bpf and kbench rows are the interpreter's, counted
        # by status (ok becomes "interpreted") but never a figure beside a JIT's
        interp = interpreted(m.get("reason"))
        if interp:
            nojit.setdefault(m["label"], []).append(m["boot"])
        releases.setdefault(m["label"], m.get("kernel_release") or doc.get("machine", {}).get("kernel", ""))
        for r in doc.get("results", []):
            # the row's own ab_label and ab_boot (schema 6) when it has them; the manifest's
            # status decides whether the boot counts, and must name the same boot
            lab = r.get("ab_label") or m["label"]
            if lab != m["label"] or (isinstance(r.get("ab_boot"), int) and r["ab_boot"] != int(m["boot"])):
                die(f"{p}: a row of boot {r.get('ab_boot')} ({lab}), the manifest says boot {m['boot']} "
                    f"({m['label']})")
            k = key(r)
            st = statuses.setdefault(k, {}).setdefault(lab, {})
            status = r.get("status", "?")
            if interp and r.get("suite") in ("bpf", "kbench") and status in ("ok", "noisy"):
                status = "interpreted"
            st[status] = st.get(status, 0) + 1
            v, u = value(r)
            if v is None or status not in ("ok", "noisy"):
                continue
            units[k] = u
            data.setdefault(k, {}).setdefault(lab, []).append(v)
    return man, labels, specs, emulated, data, units, statuses, releases, boots_used, nojit


def compare(base, other):
    mb, mo = statistics.median(base), statistics.median(other)
    ch = mo / mb - 1 if mb else None
    ratios = [o / b - 1 for b in base for o in other if b]
    p = perm_p(base, other) if len(base) + len(other) > 2 else None
    return ch, (min(ratios), max(ratios)) if ratios else None, p


def verdict(ch, p, unit, emulated):
    if emulated:
        return "not called (emulated)"
    if ch is None or p is None or p >= 0.05:
        return "no change called" + (f" (p={p:.2f})" if p is not None else "")
    faster = ch > 0 if unit == "M/s" else ch < 0
    x = 1 + ch if unit == "M/s" else 1 / (1 + ch)
    return f"{x:.2f}x {'faster' if faster else 'slower'}"


def rows_of(d):
    man, labels, specs, emulated, data, units, statuses, releases, used, nojit = build(d)
    base = labels[0]
    out = []
    for k in sorted(set(data) | set(statuses)):
        cells = {}
        for l in labels:
            v = data.get(k, {}).get(l)
            if v:
                cells[l] = (statistics.median(v), min(v), max(v), len(v))
            elif statuses.get(k, {}).get(l, {}).get("interpreted"):
                cells[l] = "no JIT"  # (the BPF interpreter's figure is not shown)
            elif statuses.get(k, {}).get(l):
                cells[l] = ",".join(sorted(statuses[k][l]))  # e.g. skipped: no figure
        ch = {}
        for l in labels[1:]:
            if isinstance(cells.get(base), tuple) and isinstance(cells.get(l), tuple):
                c, iv, p = compare(data[k][base], data[k][l])
                ch[l] = (c, iv, p, verdict(c, p, units.get(k), emulated))
        st = "; ".join(f"{l}: " + ",".join(f"{s} {n}" for s, n in sorted(statuses.get(k, {}).get(l, {}).items()))
                       for l in labels if statuses.get(k, {}).get(l))
        out.append((k, units.get(k, ""), cells, ch, st))
    return man, labels, specs, emulated, releases, used, out, nojit


def level(n):
    return 1 - 2 * 0.5 ** n if n > 1 else 0.0


def heading(man, labels, specs, emulated, releases, used):
    lines = []
    acc = sorted({m["accel"] for m in man})
    arch = sorted({m.get("arch", "") for m in man})
    lines.append(f"rgbench ab: {len(man)} boots, {'/'.join(arch)} guests, accel {'/'.join(acc)}"
                 f"{' (qemu-tcg: emulated)' if emulated else ''}")
    for l in labels:
        st = {}
        for m in man:
            if m["label"] == l:
                st[m["status"]] = st.get(m["status"], 0) + 1
        lines.append(f"  {l}: {specs[l]} ({releases.get(l, '?') or '?'}), boots "
                     + ", ".join(f"{s} {n}" for s, n in sorted(st.items())))
    for m in man:
        if m["status"] not in ("ok",) and m.get("reason"):
            lines.append(f"  boot {m['boot']} ({m['label']}): {m['status']}: {m['reason']}")
    n = min([v for v in used.values() if v] or [0])
    lines.append(f"Median over boots [lowest, highest boot] (the boot is the unit; with {n} boots a "
                 f"side the range holds the median with probability {level(n):.0%}); change against "
                 f"{labels[0]} [lowest, highest boot ratio], p: exact permutation test over boots.")
    if emulated:
        lines.append("EMULATED: the guests ran under qemu TCG: every timing below is the emulator's "
                     "(virt qemu-tcg), not the hardware's; no change is called.")
    return lines


def timed(cells):
    """Whether a row has a figure of some kernel (a "no JIT" cell is none)."""
    return any(isinstance(c, tuple) for c in cells.values())


def cell(c, emulated):
    if not c:
        return "n/a"
    if isinstance(c, str):
        return c
    m, lo, hi, n = c
    return f"{fmt(m)} [{fmt(lo)}, {fmt(hi)}]" + ("*" if emulated else "")


def change_cell(x):
    if not x or x[0] is None:
        return "n/a"
    c, iv, p, _ = x
    s = f"{c * 100:+.1f}%"
    if iv:
        s += f" [{iv[0] * 100:+.1f}, {iv[1] * 100:+.1f}]"
    return s


def table(d, form):
    man, labels, specs, emulated, releases, used, rows, nojit = rows_of(d)
    lines = heading(man, labels, specs, emulated, releases, used)
    # (said once per kernel: its bpf and kbench cells read "no JIT", or the row is untimed)
    interp = []
    for l, b in nojit.items():
        n = sum(1 for k, u, c, x, st in rows if c.get(l) == "no JIT")
        interp.append(f"No BPF JIT: {l} (boot{'s' if len(b) > 1 else ''} {', '.join(b)}): "
                      + (f"{n} of its bpf and kbench rows ran in the BPF interpreter: not compared (\"no JIT\")."
                         if n else "none of its bpf and kbench rows ran (their reasons in its boot file), "
                         "so none is compared."))
    lines += interp
    # a kernel other than the base with no finished boot has no column (its line says why)
    gone = [l for l in labels[1:] if not used[l]]
    if gone:
        labels = [l for l in labels if l not in gone]
        lines.append(f"No finished boot, so no column: {', '.join(gone)}.")
    virt = "qemu-tcg" if emulated else "kvm"
    head = ["benchmark", "unit", "virt"] + [l for l in labels]
    for l in labels[1:]:
        head += [f"{l} vs {labels[0]}", "p", "verdict"]
    body = []
    for k, unit, cells, ch, st in rows:
        if not timed(cells):
            continue
        r = [name(k), unit, virt] + [cell(cells.get(l), emulated) for l in labels]
        for l in labels[1:]:
            x = ch.get(l)
            r += [change_cell(x), f"{x[2]:.2f}" if x and x[2] is not None else "n/a",
                  x[3] if x else "n/a"]
        body.append(r)
    skipped = [(k, st) for k, unit, cells, ch, st in rows if not timed(cells)]
    if form == "markdown":
        out = [l for l in lines] + [""]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join("---" if i < 3 else "---:" for i in range(len(head))) + "|")
        for r in body:
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
        if skipped:
            out += ["", "Rows without a timing (statuses per kernel):", ""]
            out += [f"- {name(k)}: {st}" for k, st in skipped]
        if emulated:
            out += ["", "\\* emulated (qemu TCG): not the hardware's timing."]
        return "\n".join(out) + "\n"
    if form == "commit-log":
        import textwrap
        return commit_log(man, labels, specs, emulated, releases, used, rows) + (
            "\n" + textwrap.fill(f"No finished boot: {', '.join(gone)} (not in the tables).", 72) + "\n"
            if gone else "") + "".join("\n" + textwrap.fill(x, 72) + "\n" for x in interp)
    w = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    out = lines + [""]
    out.append("  ".join(h.ljust(w[i]) for i, h in enumerate(head)).rstrip())
    for r in body:
        out.append("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
    if skipped:
        out += ["", "Rows without a timing (statuses per kernel):"]
        out += [f"  {name(k)}: {st}" for k, st in skipped]
    if emulated:
        out += ["", "* emulated (qemu TCG): not the hardware's timing."]
    return "\n".join(out) + "\n"


def wrap(text, width=72, indent=""):
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = indent + w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return lines


def commit_log(man, labels, specs, emulated, releases, used, rows):
    """The seed's form, one small table per trigger bench row (suites bpf and kbench), 72 columns."""
    out = []
    n = min([v for v in used.values() if v] or [0])
    intro = (f"Base {labels[0]} ({releases.get(labels[0], '') or specs[labels[0]]}) against "
             + ", ".join(f"{l} ({releases.get(l, '') or specs[l]})" for l in labels[1:])
             + f", {n} boots each, alternated (rgbench ab); median over boots with the lowest"
               " and highest boot; change with p over boots.")
    out += wrap(intro)
    if emulated:
        out += wrap("EMULATED (qemu TCG): these timings are the emulator's, not the hardware's;"
                    " no change is called.")
    lw = max(len("Configuration"), *(len(l) for l in labels))
    for k, unit, cells, ch, st in rows:
        if k[0] not in ("bpf", "kbench") or not timed(cells):
            continue
        col = f"{k[1]}/{k[2]} p={k[3]} ({unit})"
        vals = []
        for l in labels:
            c = cells.get(l)
            v = c if isinstance(c, str) else "n/a" if not c else f"{fmt(c[0])} [{fmt(c[1])}, {fmt(c[2])}]" + ("*" if emulated else "")
            x = ch.get(l)
            if x and x[0] is not None:
                v += f" {x[0] * 100:+.1f}%"
                if not emulated and x[2] is not None:
                    v += f" p={x[2]:.2f}"
            vals.append(v)
        vw = max(len(col), *(len(v) for v in vals))
        if lw + vw + 7 > 72:
            vw = 72 - lw - 7
        out.append("")
        out.append(f"| {'Configuration'.ljust(lw)} | {col[:vw].ljust(vw)} |")
        for l, v in zip(labels, vals):
            out.append(f"| {l.ljust(lw)} | {v[:vw].ljust(vw)} |")
    if emulated:
        out += ["", "* emulated"]
    return "\n".join(x.rstrip() for x in out) + "\n"


def predict(d, rgbench):
    """Each kernel's figure predicted from the other kernel's boot (its tramp rows calibrated on
    that boot) against its own boot: rgbench report's two-boot check over the first finished
    boot of the base and of each other kernel, both ways."""
    import subprocess
    man = read_manifest(d)
    labels = []
    for m in man:
        if m["label"] not in labels:
            labels.append(m["label"])
    first, rel = {}, {}
    for m in man:
        if m["status"] in ("ok", "partial") and m["result"] and m["label"] not in first:
            first[m["label"]] = m["result"]
            rel[m["label"]] = m.get("kernel_release") or ""
    out = ["The prediction check: each kernel's figure predicted from the other kernel's boot",
           "(its tramp rows calibrated on that boot) against its own boot; rgbench report's",
           "two-boot check over the first finished boot of each."]
    if any(m["accel"] != "kvm" for m in man):
        out.append("EMULATED (qemu TCG): the figures are the emulator's; this shows the flow,")
        out.append("not the hardware, and its errors say nothing about the model.")
    summaries = []
    for a, b in [(x, y) for x in labels for y in labels if x != y and labels[0] in (x, y)]:
        fa, fb = first.get(a), first.get(b)
        out += ["", f"-- {b} predicted from {a} ({fa or 'no boot'} -> {fb or 'no boot'})"]
        if not fa or not fb:
            out.append("   not checked: a kernel has no finished boot")
            continue
        if rel.get(a) and rel.get(a) == rel.get(b):
            out.append(f"   both boots run kernel {rel[a]}: one design, nothing to predict")
            continue
        rep = os.path.join(d, f"report-{a}-{b}.md")
        # each suite's own file (one run id each; the merged boot file mixes three, which the
        # report's input policy refuses)
        files = [f for x in (fa, fb) for f in sorted(glob.glob(os.path.join(d, x[:-5], "out", "*.json")))]
        r = subprocess.run([rgbench, "report", "--allow-emulated", "--width", "110", "--force",
                            *files, "--out", rep], capture_output=True, text=True)
        if r.returncode != 0:
            out.append("   not checked: " + (r.stderr.strip().splitlines() or ["rgbench report failed"])[0])
            continue
        sec, on = [], False
        for line in open(rep, encoding="utf-8"):
            if line.startswith("## Two kernels of one machine"):
                on = True
                continue
            if on and line.startswith("## "):
                break
            if on:
                sec.append(line.rstrip("\n"))
        while sec and not sec[0].strip():
            sec.pop(0)
        while sec and not sec[-1].strip():
            sec.pop()
        out += sec or [f"   rgbench report printed no two-boot check for these boots ({os.path.basename(rep)})"]
        line = summary(sec, a)
        if line:
            out += ["", line]
            summaries.append(line)
    if summaries:
        out += ["", "Summary (per design, from the other kernel's boot against its own):"] + summaries
    return "\n".join(out) + "\n"


def summary(sec, source):
    """One line from a two-boot check: the patched kernel's design, predicted from the base's boot,
    against its own measurement: the events, the median error and its range (rgbench report's
    table: event, base, pred., interval, patched, error)."""
    text = re.sub(r"\s+", " ", " ".join(sec))  # (report wraps its lines where the host name puts the break)
    m = re.search(r"base kernel (\S+) \(runs (\S+)\), patched kernel (\S+) \(runs (\S+)\)", text)
    if not m:
        same = re.search(r"kernels (\S+) and (\S+): both run (\S+), nothing to predict", text)
        return (f"- {same.group(3)}: both kernels run it ({same.group(1)}, {same.group(2)}), nothing to predict"
                if same else "")
    errs, code = [], False
    for line in sec:
        if line.startswith("```"):
            code = not code
            continue
        f = line.split()
        if code and f and f[-1].endswith("%"):
            try:
                errs.append(float(f[-1][:-1]))
            except ValueError:
                pass
    if not errs:
        return f"- {m.group(4)} ({m.group(3)}) from {source}'s boot: no event measured on both"
    return (f"- {m.group(4)} ({m.group(3)}) predicted from {source}'s boot ({m.group(2)}): "
            f"{len(errs)} events, error median {statistics.median(errs):+.1f}% "
            f"(from {min(errs):+.1f}% to {max(errs):+.1f}%)")


def main(argv):
    if len(argv) >= 2 and argv[1] == "--predict":
        if len(argv) != 4:
            die("--predict DIR RGBENCH", 2)
        sys.stdout.write(predict(argv[2], argv[3]))
        return 0
    if len(argv) >= 2 and argv[1] == "--merge":
        if len(argv) != 6:
            die("--merge GUEST_OUT FILE LABEL BOOT", 2)
        merge(*argv[2:6])
        return 0
    if len(argv) >= 2 and argv[1] == "--why":
        if len(argv) != 4:
            die("--why BOOT_DIR VM_EXIT", 2)
        w = why(argv[2], int(argv[3]))
        if w:
            print(w)
        return 0
    form = "text"
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--format":
        form = args[1]
        args = args[2:]
    if form not in ("text", "markdown", "commit-log") or len(args) != 1:
        die("usage: ab_table.py [--format text|markdown|commit-log] DIR", 2)
    sys.stdout.write(table(args[0], form))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
