#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copy a kernel's BTF (its .BTF section, what /sys/kernel/btf/vmlinux serves) out of a kernel
image file, for building BPF programs for a kernel this machine does not run (build.sh --arch).
An arm64 Image is the kernel's memory image, not an ELF file, so the section has no name there:
the BTF is found by its header (magic 0xeB9F, version 1, a 24-byte header whose type section
starts at 0 and whose string section follows it) and its length read from that header; the
largest such blob is the kernel's. A gzip'd image is unpacked first.
usage: btf_from_image.py IMAGE OUT   (exit 1 with one line: no BTF found, or not readable)"""
import gzip
import struct
import sys

if len(sys.argv) != 3:
    sys.exit("usage: btf_from_image.py IMAGE OUT")
image, out = sys.argv[1:]
try:
    data = open(image, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
except (OSError, EOFError, gzip.BadGzipFile) as e:
    sys.exit("btf_from_image.py: %s: cannot read it (%s)" % (image, e))
best = (0, 0)
at = data.find(b"\x9f\xeb\x01")
while at >= 0:
    if at + 24 <= len(data):
        hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<5I", data, at + 4)
        size = hdr_len + max(type_off + type_len, str_off + str_len)
        if (hdr_len == 24 and type_off == 0 and str_off == type_len and str_len > 0
                and at + size <= len(data) and data[at + hdr_len + str_off] == 0 and size > best[1]):
            best = (at, size)
    at = data.find(b"\x9f\xeb\x01", at + 1)
if not best[1]:
    sys.exit("btf_from_image.py: %s: no BTF in it (a kernel built without CONFIG_DEBUG_INFO_BTF, "
             "or not a kernel image)" % image)
with open(out, "wb") as f:
    f.write(data[best[0]:best[0] + best[1]])
print("btf_from_image.py: %s: %d bytes of BTF at offset %d" % (image, best[1], best[0]))
