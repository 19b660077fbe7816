#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bpf.kbench_btf: btf_from_image.py takes a kernel's BTF out of an image (the largest blob with a
valid header, a decoy magic and a smaller blob passed over; gzip'd too; none: one line, exit 1),
and build.sh's usage errors are one line and exit 2. No kernel source, compiler or network.
usage: test_btf.py KBENCH_DIR"""
import gzip
import os
import struct
import subprocess
import sys
import tempfile

here = sys.argv[1]
fails = 0


def check(what, cond, detail=""):
    global fails
    print(("ok: " if cond else "FAIL: ") + what + ("" if cond else " (%s)" % detail))
    fails += not cond


def blob(ntypes, strings):
    """A BTF blob: header (magic 0xeB9F, version 1, 24 bytes), type words, a string section."""
    types = b"".join(struct.pack("<III", 0, 1 << 24, 4) for _ in range(ntypes))  # INT-kind words
    strs = b"\0" + strings + b"\0"
    return struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 24, 0, len(types), len(types), len(strs)) + types + strs


def carve(image_bytes, name):
    d = tempfile.mkdtemp()
    img, out = os.path.join(d, name), os.path.join(d, "out.btf")
    open(img, "wb").write(image_bytes)
    p = subprocess.run([sys.executable, os.path.join(here, "btf_from_image.py"), img, out],
                       capture_output=True, text=True)
    got = open(out, "rb").read() if os.path.exists(out) else None
    return p, got, img


big, small = blob(40, b"task_struct"), blob(2, b"x")
# a decoy: the magic with a header that does not hold (hdr_len 99)
decoy = struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 99, 0, 8, 8, 4)
image = os.urandom(4096).replace(b"\x9f\xeb", b"\0\0") + decoy + os.urandom(64).replace(b"\x9f\xeb", b"\0\0")
image += small + b"\0" * 100 + big + os.urandom(512).replace(b"\x9f\xeb", b"\0\0")
p, got, _ = carve(image, "Image")
check("the largest valid blob taken", p.returncode == 0 and got == big,
      "exit %d, %s bytes, stderr %r" % (p.returncode, None if got is None else len(got), p.stderr))
check("its offset said", p.stdout.strip().endswith("%d bytes of BTF at offset %d" % (len(big), image.index(big))),
      p.stdout)
p, got, _ = carve(gzip.compress(image), "Image.gz")
check("a gzip'd image unpacked first", p.returncode == 0 and got == big, "exit %d" % p.returncode)
p, got, img = carve(os.urandom(2048).replace(b"\x9f\xeb", b"\0\0") + decoy, "notbtf")
want = ("btf_from_image.py: %s: no BTF in it (a kernel built without CONFIG_DEBUG_INFO_BTF, "
        "or not a kernel image)\n" % img)
check("no BTF: one line, exit 1, no file", p.returncode == 1 and p.stderr == want and got is None,
      "exit %d, stderr %r" % (p.returncode, p.stderr))

# build.sh: usage errors before anything is looked for
for args, line in ((["--arch", "riscv64"], "kbench: --arch: 'riscv64' is not amd64 or arm64\n"),
                   (["--arch"], "kbench: --arch needs a value\n"),
                   (["--bogus"], "kbench: unknown option '--bogus' (usage: build.sh [--arch amd64|arm64] "
                                 "[--btf FILE] [TARBALL])\n")):
    p = subprocess.run(["bash", os.path.join(here, "build.sh")] + args, capture_output=True, text=True)
    check("build.sh %s: one line, exit 2" % " ".join(args),
          p.returncode == 2 and p.stderr == line and p.stdout == "",
          "exit %d, stderr %r" % (p.returncode, p.stderr))
print("bpf.kbench_btf: %s" % ("PASS" if not fails else "%d FAILED" % fails))
sys.exit(1 if fails else 0)
