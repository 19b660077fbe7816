#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layers point down: no source file includes a header of a higher layer, and no
CMake target links one or exports another folder's private headers (docs/architecture.md)."""
import os
import re
import sys

# Bottom up. A folder may use its own layer and every layer below it.
LAYERS = [
    ["arch"],
    ["cmdline", "platform", "schema"],
    ["guards"],
    ["bench", "kernel/bpf", "kernel/kmod"],
    ["plots"],
    ["tools"],
]
RANK = {folder: i for i, layer in enumerate(LAYERS) for folder in layer}


def folder_of(path):
    for f in sorted(RANK, key=len, reverse=True):
        if path == f or path.startswith(f + "/"):
            return f
    return None


def public_headers(src):
    """rg/<name>.h -> the folder whose include/ holds it."""
    owner = {}
    for folder in RANK:
        inc = os.path.join(src, folder, "include")
        for root, _, files in os.walk(inc):
            for name in files:
                rel = os.path.relpath(os.path.join(root, name), inc)
                owner[rel] = folder
    return owner


def sources(src, folder):
    for root, _, files in os.walk(os.path.join(src, folder)):
        for name in files:
            if re.search(r"\.(c|h|cc|hh|in)$", name):
                yield os.path.join(root, name)


def check_includes(src, owner, errors):
    inc_re = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
    for folder in RANK:
        for path in sources(src, folder):
            if folder == "kernel/kmod" and path.endswith("rgbench_kmod.c"):
                continue  # the module: kernel headers only
            text = open(path, errors="replace").read()
            for hdr in inc_re.findall(text):
                to = owner.get(hdr)
                if to and RANK[to] > RANK[folder]:
                    errors.append(f"{os.path.relpath(path, src)} includes {hdr} from {to}/, "
                                  f"a higher layer")


def cmake_targets(src):
    """target -> folder, and folder -> list of (target, linked items, include dirs)."""
    defined, uses = {}, []
    for folder in RANK:
        cm = os.path.join(src, folder, "CMakeLists.txt")
        if not os.path.exists(cm):
            continue
        text = re.sub(r"#[^\n]*", "", open(cm).read())
        for m in re.finditer(r"add_(?:library|executable)\(\s*([A-Za-z0-9_${}-]+)", text):
            defined[m.group(1)] = folder
        for m in re.finditer(r"target_link_libraries\(\s*(\S+)([^)]*)\)", text):
            uses.append((folder, m.group(1), m.group(2).split()))
        for m in re.finditer(r"target_include_directories\(\s*(\S+)([^)]*)\)", text):
            for d in re.findall(r'"\$\{PROJECT_SOURCE_DIR\}/([^"]+)"', m.group(2)):
                uses.append((folder, m.group(1), ["@dir:" + d]))
    return defined, uses


def check_links(src, errors):
    defined, uses = cmake_targets(src)
    for folder, tgt, items in uses:
        for item in items:
            if item.startswith("@dir:"):
                to = folder_of(item[5:])
                if to and to != folder:
                    errors.append(f"{folder}/CMakeLists.txt: {tgt} uses {item[5:]}, "
                                  f"another folder's files")
                continue
            name = re.sub(r"^\$<\$<TARGET_EXISTS:[^>]+>:([^>]+)>$", r"\1", item.strip('"'))
            to = defined.get(name)
            if to and RANK[to] > RANK[folder]:
                errors.append(f"{folder}/CMakeLists.txt: {tgt} links {name} from {to}/, "
                              f"a higher layer")


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    errors = []
    owner = public_headers(src)
    check_includes(src, owner, errors)
    check_links(src, errors)
    top = open(os.path.join(src, "CMakeLists.txt")).read()
    if re.search(r"if\(TARGET ", top):
        errors.append("CMakeLists.txt: depends on the order of add_subdirectory (if(TARGET ...))")
    for e in errors:
        print("layers:", e)
    if errors:
        return 1
    print(f"layers: {len(owner)} public headers in {len(RANK)} folders; every include and link "
          "points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
