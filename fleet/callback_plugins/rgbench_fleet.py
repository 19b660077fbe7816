# SPDX-License-Identifier: MIT
"""rgbench fleet's names and record of each host: one line per failure as it happens, one per finished host.

Enabled by fleet/fleet.sh (ANSIBLE_CALLBACKS_ENABLED). An inventory name is untrusted: it
never names a file. When the play starts, each host gets rg_name (a host variable the
playbook names the host's files with): its inventory name's safe file-name form, from
`$RG_FLEET_RGBENCH --safe-name` (rgbench's one rule, rg/safe_name.h), made unique among the
hosts and the fleet's own files by -2, -3, ... in inventory order. Writes to $RG_FLEET_STATUS,
one tab-separated line each, flushed at once so that a Ctrl-C keeps what was known:
    NAME<TAB>listed<TAB>SHOWN                (the play starts on the host: every inventory host)
    NAME<TAB>failed<TAB>STEP<TAB>REASON      (a task failed or the host was unreachable)
    NAME<TAB>ok                              (the play finished on the host without a failure)
NAME is rg_name; SHOWN the inventory name as the terminal shows it (shown(): no control
character, so no tab and no line of its own); STEP is the task name (copy, install, run, fetch);
REASON is one line, shown() too. A fetch that failed part way (a full disk) may have left a
partial tar behind: it is removed ($RG_FLEET_OUT/.NAME.tar), so that only whole tars stay. It
prints a line per host as it goes (a failure, a finished run) on the file descriptor
$RG_FLEET_PROGRESS_FD (rgbench fleet's stderr), else on stderr, after a first line: the number
of hosts and $RG_FLEET_START (what the run is, as fleet.sh says it).
"""
import os
import subprocess
import sys
import unicodedata

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: rgbench_fleet
    type: aggregate
    short_description: rgbench fleet's per-host status file
    description: Records each host's failure (step and reason) and its finish for rgbench fleet.
    requirements: [RG_FLEET_STATUS and RG_FLEET_OUT in the environment]
"""


# The fleet's own files in its folder: no host's folder may take their names.
FLEET_FILES = ("report.md", "status.tsv", "ansible.log")
SAFE_NAME_MAX = 64  # RG_SAFE_NAME_MAX (rg/safe_name.h)


def shown(text):
    """text for the terminal: a backslash doubled, \\t \\n \\r, other control characters
    (C0, DEL, C1) as \\xHH, format and separator characters (bidi overrides, U+2028) as \\uHHHH."""
    out = []
    for ch in str(text):
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch in "\t\n\r":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r"}[ch])
        elif o < 0x20 or 0x7f <= o < 0xa0:
            out.append(f"\\x{o:02x}")
        elif unicodedata.category(ch) in ("Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}")
        else:
            out.append(ch)
    return "".join(out)


def safe_names(names):
    """Each inventory name's folder name: rgbench's safe form, unique (-2, -3, ... in order)."""
    if not names:
        return {}
    rgbench = os.environ.get("RG_FLEET_RGBENCH", "")
    res = subprocess.run([rgbench, "--safe-name"] + list(names), capture_output=True, text=True,
                         check=False)
    safe = res.stdout.splitlines()
    if res.returncode != 0 or len(safe) != len(names):
        raise RuntimeError(f"{rgbench} --safe-name failed: {one_line(res.stderr)}")
    taken, out = set(FLEET_FILES), {}
    for name, base in zip(names, safe):
        cand, k = base, 2
        while cand in taken:
            sfx = f"-{k}"
            cand = base[:SAFE_NAME_MAX - len(sfx)] + sfx
            k += 1
        taken.add(cand)
        out[name] = cand
    return out


def one_line(text):
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return lines[-1] if lines else ""


# ansible-core 2.19 (Debian 13) puts its error class's words before a message that 2.14
# (Debian 12) gives bare: "Task failed: Missing sudo password" for "Missing sudo password";
# likewise "Action failed: " and "Module failed: ". The fleet's line is the same on both.
ANSIBLE_PREFIXES = ("Task failed: ", "Action failed: ", "Module failed: ")


def bare(msg):
    """msg without ansible-core 2.19's leading error-class words."""
    while msg.startswith(ANSIBLE_PREFIXES):
        msg = msg.split(": ", 1)[1]
    return msg


def reason_of(res):
    """The one line that says why a task failed, from Ansible's result dict."""
    msg = bare(str(res.get("msg", "")))
    if "rc" in res and msg.startswith("non-zero return code"):
        why = one_line(res.get("stderr", "")) or one_line(res.get("stdout", "")) or "no output"
        return f"exit {res['rc']}: {why}"
    if msg.startswith("MODULE FAILURE") or not msg:
        why = one_line(res.get("module_stderr", "")) or one_line(res.get("module_stdout", ""))
        if why:
            return why
    if res.get("results"):  # a loop: the first item that failed
        for item in res["results"]:
            if item.get("failed"):
                return f"{item.get('item', '')}: {reason_of(item)}"
    first = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    return first[0] if first else "failed"


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "rgbench_fleet"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.path = os.environ.get("RG_FLEET_STATUS")
        self.out = os.environ.get("RG_FLEET_OUT", "")
        self.failed = set()
        self.names = {}  # inventory name -> rg_name
        # Progress lines go to rgbench fleet's own stderr (Ansible's output goes to a log).
        self.progress = None
        fd = os.environ.get("RG_FLEET_PROGRESS_FD", "")
        if fd.isdigit():
            try:
                self.progress = os.fdopen(int(fd), "w", buffering=1, closefd=False)
            except OSError:
                self.progress = None

    def _write(self, *fields):
        if not self.path:
            return
        line = "\t".join(shown(f) for f in fields)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()

    def _print(self, line):
        try:
            print(line, file=self.progress or sys.stderr, flush=True)
        except OSError:
            pass

    def _say(self, host, text):
        self._print(f"rgbench fleet: {shown(host)}: {shown(text)}")

    def _fail(self, result, reason):
        host = result._host.get_name()
        name = self.names.get(host)
        if result._task.get_name() == "fetch" and self.out and name:
            tar = os.path.join(self.out, "." + name + ".tar")
            if os.path.isfile(tar):
                os.unlink(tar)
        if host in self.failed or not name:
            return
        self.failed.add(host)
        step = result._task.get_name() or "?"
        self._write(name, "failed", step, reason)
        self._say(host, f"failed at {step}: {reason}")

    def v2_playbook_on_play_start(self, play):
        vm = play.get_variable_manager()
        hosts = [h.get_name() for h in vm._inventory.get_hosts(play.hosts)]
        self.names = safe_names(hosts)
        for host in hosts:
            vm.set_host_variable(host, "rg_name", self.names[host])
            self._write(self.names[host], "listed", host)
        start = os.environ.get("RG_FLEET_START")
        if start and hosts:
            self._print(f"rgbench fleet: {len(hosts)} host{'s' if len(hosts) != 1 else ''} {start}")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        if not ignore_errors:
            self._fail(result, reason_of(result._result))

    def v2_runner_on_unreachable(self, result):
        why = bare(one_line(result._result.get("msg", ""))) or "no reason given"
        # 'Data could not be sent to remote host "X". Make sure this host can be reached over
        # ssh: ssh: connect to host X port 22: Connection refused': ssh's own words are the reason.
        # ('Failed to connect to the host via ssh: ssh: ...' likewise)
        why = why.split("can be reached over ssh: ", 1)[-1]
        why = why.split("Failed to connect to the host via ssh: ", 1)[-1]
        self._fail(result, "unreachable: " + why)

    def v2_runner_on_ok(self, result):
        name = result._task.get_name()
        host = result._host.get_name()
        if name == "run" and result._task.action in ("ansible.builtin.command", "command") and \
                result._result.get("rc") == 0:
            self._say(host, "scripts/run.sh finished")

    def v2_playbook_on_stats(self, stats):
        for host in sorted(stats.processed):
            s = stats.summarize(host)
            if not s["failures"] and not s["unreachable"] and host not in self.failed and \
                    host in self.names:
                self._write(self.names[host], "ok")
