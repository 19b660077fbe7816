#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/schema.md's result-schema table must equal RG_RESULT_COLUMNS in schema/include/rg/schema.h.

A column's `since` field (the schema version that added it) shows as "(since version N)"
after its meaning when N > 1; the header's meanings do not repeat it.

  schema_doc.py SRC_DIR            check (exit 1 and a diff on mismatch)
  schema_doc.py SRC_DIR --print    print the table to paste between the markers
"""
import difflib
import re
import sys

KINDS = {"S": "string", "I": "integer", "U": "integer (u64)", "D": "number (empty when missing)", "B": "0/1"}
BEGIN, END = "<!-- schema:begin -->", "<!-- schema:end -->"


def table(src):
    text = open(f"{src}/schema/include/rg/schema.h").read()
    version = re.search(r"#define RG_SCHEMA_VERSION (\d+)", text).group(1)
    body = text[text.index("#define RG_RESULT_COLUMNS(X)"):]
    body = body[:body.index("\n\n")]
    cols = re.findall(r'X\((\w+), ([SIUDB]), (\d+), "((?:[^"\\]|\\.)*)"\)', body)
    if not cols:
        sys.exit("schema_doc: no columns found in schema.h")
    lines = [f"Schema version {version}: {len(cols)} columns, in this order.", "",
             "| # | column | type | meaning |", "|---:|---|---|---|"]
    for i, (name, kind, since, doc) in enumerate(cols, 1):
        if "since version" in doc:
            sys.exit(f"schema_doc: {name}: write the version as X's since field, not in the meaning")
        if not 1 <= int(since) <= int(version):
            sys.exit(f"schema_doc: {name}: since {since} is not 1 .. {version}")
        if int(since) > 1:
            doc += f" (since version {since})"
        lines.append(f"| {i} | `{name}` | {KINDS[kind]} | {doc.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main():
    src = sys.argv[1]
    want = table(src)
    if "--print" in sys.argv[2:]:
        sys.stdout.write(want)
        return 0
    readme = open(f"{src}/docs/schema.md").read()
    if BEGIN not in readme or END not in readme:
        print(f"docs/schema.md has no {BEGIN} ... {END} section")
        return 1
    have = readme.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    if have != want:
        sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                                   "docs/schema.md", "schema.h"))
        print("docs/schema.md's schema table differs from RG_RESULT_COLUMNS: "
              "regenerate it with tests/bench/schema_doc.py . --print")
        return 1
    print(f"docs/schema.md's schema table matches schema.h ({want.count(chr(10)) - 4} columns)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
