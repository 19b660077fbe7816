#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vm.sh --step-from MARKER [--step-until UNTIL]: once the guest prints MARKER on a console
line, switch TCG to one guest instruction per translated block through qemu's monitor; once
it prints UNTIL, back to whole blocks.

usage: step_from.py MARKER CONSOLE_LOG MONITOR_SOCKET STATUS_FILE [UNTIL]

Booting a kernel one instruction per block took a minute of the arm64 stress boot; the
tests that need it (interrupts landing anywhere in a guard's window) run after the
marker. The monitor command is `one-insn-per-tb on` in qemu 8.1 and later and
`singlestep on` before; both are tried. STATUS_FILE gets "ok <command>" or
"fail <reason>" (vm.sh fails the run on anything but ok); with UNTIL, a second line
"ok <command>" or "fail <reason>" once it has switched back (off: the guest's output
files, base64 on the console, took half a minute more single-stepped). Runs until it has
switched, failed, or is killed with qemu.
"""
import os
import socket
import sys
import time


def wait_for_line(path, marker):
    """True once MARKER is a whole line of the log; False when vm.sh is gone (its log
    removed, or this process handed to another parent)."""
    pos, part = 0, b""
    want = marker.encode()
    parent = os.getppid()
    while os.getppid() == parent:
        try:
            with open(path, "rb") as f:
                f.seek(pos)
                data = f.read()
        except FileNotFoundError:
            if pos:
                return False
            data = b""
        pos += len(data)
        lines = (part + data).split(b"\n")
        part = lines.pop()
        if any(ln.rstrip(b"\r") == want for ln in lines):
            return True
        time.sleep(0.05)
    return False


def read_prompt(s):
    """The monitor's output up to its next '(qemu) ' prompt."""
    buf = b""
    while not buf.endswith(b"(qemu) "):
        chunk = s.recv(4096)
        if not chunk:
            raise OSError("the monitor closed")
        buf += chunk
    return buf.decode("utf-8", "replace")


def switch(sock, cmds):
    """The first of CMDS the monitor takes: "ok <command>", else "fail <reason>"."""
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(sock)
        read_prompt(s)
        for cmd in cmds:
            s.sendall(cmd.encode() + b"\n")
            reply = read_prompt(s)
            if not any(bad in reply for bad in ("unknown command", "Error", "error")):
                s.close()
                return "ok " + cmd
        s.close()
        return "fail no monitor command switched it " + cmds[0].split()[-1]
    except OSError as e:
        return f"fail monitor {sock}: {e}"


def main():
    marker, log, sock, status = sys.argv[1:5]
    until = sys.argv[5] if len(sys.argv) > 5 else None
    if not wait_for_line(log, marker):
        return 1
    result = switch(sock, ("one-insn-per-tb on", "singlestep on"))
    with open(status, "w") as f:
        f.write(result + "\n")
    if not result.startswith("ok"):
        return 1
    if until is None:
        return 0
    if not wait_for_line(log, until):
        return 1
    off = result.split()[1] + " off"  # the command that switched it on
    result = switch(sock, (off,))
    with open(status, "a") as f:
        f.write(result + "\n")
    return 0 if result.startswith("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
