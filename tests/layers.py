#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layers point down (docs/architecture.md). Errors, each with the file that commits it:
- a source file includes a public header of a higher layer, or of another folder of its
  own layer (the suites bench, kernel/bpf and kernel/kmod never use each other; the
  folders of one layer are siblings, not a stack);
- a relative include ("../x.h") that climbs out of its folder;
- a CMake target links a target of a higher layer or of another folder of its own layer,
  uses another folder's files as include directories, exports (PUBLIC/INTERFACE) its
  own folder beyond include/, or compiles another folder's sources (a path into
  another folder in a target's source list);
- the top CMakeLists.txt depends on add_subdirectory order (if(TARGET ...));
- a folder of the results room (analysis/*) or the plotting program (plots/) has more than
  one public header, or a target takes another folder's files as include directories by a
  relative path.
The results room (analysis/) is layers of its own: read and page, then across (every host at once), then the
commands compare and report, then analysis/ itself (rg_analysis, gathering them). The
plotting program (plots/) reads the rows through it, and the commands (tools/: rgbench,
rgbench-report) sit on top.

  layers.py [SRC]            check SRC (default .)
  layers.py --self-test      copy the tree, add one violation of each kind, expect each
                             to be reported (the check can fail)"""
import os
import re
import sys

# Bottom up. A folder may use its own layer and every layer below it.
LAYERS = [
    ["arch", "text"],
    ["cmdline", "platform", "schema"],
    ["guards"],
    ["kernel/trig"],
    ["bench", "kernel/bpf", "kernel/kmod"],
    ["analysis/read", "analysis/page"],
    ["analysis/across"],
    ["analysis/compare", "analysis/report", "analysis/export"],
    ["analysis"],
    ["plots", "fleet", "ab"],
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
    """The files of folder, not of a folder nested in it (analysis/read in analysis)."""
    top = os.path.join(src, folder)
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs
                   if os.path.relpath(os.path.join(root, d), src).replace(os.sep, "/") not in RANK]
        for name in files:
            if re.search(r"\.(c|h|cc|hh|in)$", name):
                yield os.path.join(root, name)


def direction(frm, to):
    """None when frm may use to, else why not."""
    if to == frm or RANK[to] < RANK[frm]:
        return None
    return "a higher layer" if RANK[to] > RANK[frm] else "a sibling of the same layer"


def check_includes(src, owner, errors):
    inc_re = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
    for folder in RANK:
        for path in sources(src, folder):
            if folder == "kernel/kmod" and "/module/" in path:
                continue  # the module: kernel headers only
            rel = os.path.relpath(path, src)
            text = open(path, errors="replace").read()
            for quote, hdr in inc_re.findall(text):
                if quote == '"' and hdr.startswith(".."):
                    target = os.path.normpath(os.path.join(os.path.dirname(rel), hdr))
                    if folder_of(target) != folder:
                        errors.append(f"{rel} includes {hdr}: a relative path out of {folder}/")
                    continue
                to = owner.get(hdr)
                why = to and direction(folder, to)
                if why:
                    errors.append(f"{rel} includes {hdr} from {to}/, {why}")


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
        # Targets made by a function of this file: function(f name ...) add_library(${name} ...)
        for m in re.finditer(r"function\(\s*(\w+)\s+(\w+)[^)]*\)(.*?)endfunction", text, re.S):
            if re.search(r"add_(?:library|executable)\(\s*\$\{" + m.group(2) + r"\}", m.group(3)):
                for call in re.finditer(r"(?<![\w(])" + m.group(1) + r"\(\s*([A-Za-z0-9_-]+)", text):
                    defined[call.group(1)] = folder
        for m in re.finditer(r"target_link_libraries\(\s*(\S+)([^)]*)\)", text):
            uses.append((folder, m.group(1), m.group(2).split()))
        for m in re.finditer(r"target_include_directories\(\s*(\S+)([^)]*)\)", text):
            for d in re.findall(r'"\$\{PROJECT_SOURCE_DIR\}/([^"]+)"', m.group(2)):
                uses.append((folder, m.group(1), ["@dir:" + d]))
            # What a target exports (PUBLIC, INTERFACE) of its own folder: include/ only.
            scope = "PRIVATE"
            for item in m.group(2).split():
                if item in ("PUBLIC", "INTERFACE", "PRIVATE", "SYSTEM", "BEFORE", "AFTER"):
                    scope = item if item in ("PUBLIC", "INTERFACE", "PRIVATE") else scope
                    continue
                d = re.sub(r"^\$\{(CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}", folder,
                           re.sub(r"^\$\{PROJECT_SOURCE_DIR\}/", "", item.strip('"'))).rstrip("/")
                if not d.startswith(("$", "/")) and not d.startswith(folder + "/") and d != folder:
                    d = os.path.normpath(os.path.join(folder, d))	# relative to the folder
                if folder_of(d) not in (folder, None) and not item.startswith('"${PROJECT_SOURCE_DIR}'):
                    uses.append((folder, m.group(1), ["@dir:" + d]))
                if scope != "PRIVATE" and folder_of(d) == folder and not (
                        d == folder + "/include" or d.startswith(folder + "/include/")):
                    uses.append((folder, m.group(1), ["@export:" + d]))
        # Sources: any path into another folder, by ${PROJECT_SOURCE_DIR}/ or by ../
        for m in re.finditer(r'\$\{PROJECT_SOURCE_DIR\}/([\w./-]+\.(?:c|cc|S))\b', text):
            uses.append((folder, "(sources)", ["@src:" + m.group(1)]))
        for m in re.finditer(r'(?<![\w/}])((?:\.\./)+[\w./-]+\.(?:c|cc|S))\b', text):
            uses.append((folder, "(sources)",
                         ["@src:" + os.path.normpath(os.path.join(folder, m.group(1)))]))
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
            if item.startswith("@export:"):
                errors.append(f"{folder}/CMakeLists.txt: {tgt} exports {item[8:]}, its own "
                              f"folder beyond {folder}/include (only include/ is public)")
                continue
            if item.startswith("@src:"):
                to = folder_of(item[5:])
                if to != folder:
                    errors.append(f"{folder}/CMakeLists.txt: compiles {item[5:]}, "
                                  f"another folder's source")
                continue
            name = re.sub(r"^\$<\$<TARGET_EXISTS:[^>]+>:([^>]+)>$", r"\1", item.strip('"'))
            to = defined.get(name)
            why = to and direction(folder, to)
            if why:
                errors.append(f"{folder}/CMakeLists.txt: {tgt} links {name} from {to}/, {why}")


# Folders whose include/ holds exactly one header: the results room's and the plotting program's.
ONE_HEADER = [f for f in RANK if f.startswith("analysis/")] + ["plots"]


def check_one_header(src, owner, errors):
    for folder in ONE_HEADER:
        mine = sorted(h for h, f in owner.items() if f == folder)
        for extra in mine[1:]:
            errors.append(f"{folder}/include/{extra}: a second public header of {folder}/ "
                          f"(one per folder of analysis/ and plots/: {mine[0]})")


def check(src):
    errors = []
    owner = public_headers(src)
    check_one_header(src, owner, errors)
    check_includes(src, owner, errors)
    check_links(src, errors)
    top = open(os.path.join(src, "CMakeLists.txt")).read()
    if re.search(r"if\(TARGET ", top):
        errors.append("CMakeLists.txt: depends on the order of add_subdirectory (if(TARGET ...))")
    return errors, len(owner)


# --self-test: one violation of each kind, each added to a fresh copy of the tree.
VIOLATIONS = [
    ("bench/suite.c", "#include \"rg/bpf.h\"\n", "a sibling of the same layer"),
    ("schema/schema.c", "#include \"rg/cmdline.h\"\n", "a sibling of the same layer"),
    ("guards/registry.c", "#include \"rg/bench.h\"\n", "a higher layer"),
    ("bench/suite.c", "#include \"../analysis/read/reader.h\"\n", "a relative path out of bench/"),
    ("bench/CMakeLists.txt", "target_link_libraries(rg_bench PRIVATE rg_bpf)\n",
     "a sibling of the same layer"),
    ("analysis/CMakeLists.txt", "add_library(rg_extra STATIC \"${PROJECT_SOURCE_DIR}/schema/csv.c\")\n",
     "another folder's source"),
    ("tools/CMakeLists.txt", "add_library(rg_extra2 STATIC ../bench/duty.c)\n",
     "another folder's source"),
    ("guards/CMakeLists.txt", "target_include_directories(rg_guards PUBLIC \"${CMAKE_CURRENT_SOURCE_DIR}\")\n",
     "its own folder beyond guards/include"),
]


def room_violations(src):
    """The results room's rules, one violation each, drawn from LAYERS: every folder of the
    room includes the public header of a folder it may not use (a sibling of its layer when
    it has one, else the folder above it); and a link upward, a relative include, another
    folder as an include directory, a second public header."""
    room = [f for f in RANK if f.startswith("analysis/")]
    owner = {f: h for h, f in public_headers(src).items()}
    out = []
    for frm in room:
        banned = sorted((t for t in room if t != frm and direction(frm, t)),
                        key=lambda t: (RANK[t] != RANK[frm], RANK[t]))
        first_c = sorted(n for n in os.listdir(os.path.join(src, frm)) if n.endswith(".c"))[0]
        out.append((f"{frm}/{first_c}", f'#include "{owner[banned[0]]}"\n', direction(frm, banned[0])))
    out += [
        ("analysis/compare/compare_across.c", '#include "../report/report.h"\n',
         "a relative path out of analysis/compare/"),
        ("analysis/across/CMakeLists.txt", "target_link_libraries(rg_across PRIVATE rg_report)\n",
         "a higher layer"),
        ("analysis/report/CMakeLists.txt", "target_include_directories(rg_report PRIVATE ../compare)\n",
         "another folder's files"),
        ("analysis/report/include/rg/report_more.h", "/* a second public header */\n",
         "a second public header"),
        # The plotting program above the room: the room never uses it, it has one header.
        ("analysis/report/report_plots.c", '#include "rg/plots.h"\n', "a higher layer"),
        ("analysis/CMakeLists.txt", "target_link_libraries(rg_analysis INTERFACE rg_plots)\n",
         "a higher layer"),
        ("plots/include/rg/plots_more.h", "/* a second public header */\n",
         "a second public header"),
    ]
    return out


def self_test(src):
    import shutil
    import tempfile
    bad = 0
    violations = VIOLATIONS + room_violations(src)
    for i, (path, line, want) in enumerate(violations):
        with tempfile.TemporaryDirectory(prefix="rgbench-layers-") as tmp:
            tops = sorted({f.split("/")[0] for f in RANK})	# analysis/ once, with its folders
            for f in tops + ["CMakeLists.txt"]:
                s = os.path.join(src, f)
                if os.path.isdir(s):
                    shutil.copytree(s, os.path.join(tmp, f), ignore=shutil.ignore_patterns("build*"))
                elif os.path.exists(s):
                    shutil.copy(s, os.path.join(tmp, f))
            with open(os.path.join(tmp, path), "a") as fh:
                fh.write(line)
            errors, _ = check(tmp)
            hit = [e for e in errors if e.startswith(path) and want in e]
            if hit:
                print(f"layers self-test {i + 1}: {path} +{line.strip()!r}: caught: {hit[0]}")
            else:
                print(f"layers self-test {i + 1}: {path} +{line.strip()!r}: NOT caught ({errors})")
                bad += 1
    print(f"layers self-test: {len(violations) - bad} of {len(violations)} violations caught")
    return 1 if bad else 0


def main():
    args = sys.argv[1:]
    if args and args[0] == "--self-test":
        return self_test(args[1] if len(args) > 1 else ".")
    src = args[0] if args else "."
    errors, nheaders = check(src)
    for e in errors:
        print("layers:", e)
    if errors:
        return 1
    print(f"layers: {nheaders} public headers in {len(RANK)} folders; every include and link "
          "points down, no folder compiles another's sources")
    return 0


if __name__ == "__main__":
    sys.exit(main())
