#!/usr/bin/env python3
"""Lists C++ functions longer than a limit (default 120 lines) in Reach's own folders and fails
when one is not on the allowed list (issue 39: a function over 120 lines hides its steps; split it
where it has named steps). Tables of data are the exception: a function whose body is mostly one
initializer list is data, and it is named in ALLOWED with why.

The parse is a brace counter over the source with comments, strings and character literals blanked:
a function is a brace block opened at namespace depth whose header (the text since the previous
`;`, `}` or `{`) has a parameter list; class and namespace blocks are entered, not counted.

  python3 scripts/check_function_length.py [--limit 120] [ROOT]
"""
import argparse
import os
import re
import sys

FOLDERS = ("app", "core", "gpu", "ui")
# Function name -> why it may be long: tables of data, one entry per line, nothing to split.
ALLOWED = {
    "buildTable": "core/headroom/work.cpp: the work table, one row per ATen operator (docs/headroom.md)",
    "migrations": "core/store/schema.cpp: the project schema's migrations, one SQL text per version",
}

_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|R"(?P<d>[^(]*)\(.*?\)(?P=d)"|"(?:\\.|[^"\\\n])*"|'
                    r"'(?:\\.|[^'\\\n])*'", re.S)


def blank(text):
    """Comments, strings and character literals replaced by spaces, newlines kept."""
    return _TOKEN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def functions(text):
    """(name, first line, line count) of every function body in the file."""
    code = blank(text)
    out = []
    stack = []  # one entry per open brace: "scope" (namespace/class/extern) or "body"
    header_start = 0
    i = 0
    while i < len(code):
        c = code[i]
        if c == "{":
            header = code[header_start:i]
            inside_body = any(s[0] == "body" for s in stack)
            if inside_body:
                stack.append(("inner", i))
            elif re.search(r"\b(namespace|class|struct|union|enum)\b[^()]*$", header) or \
                    re.search(r'extern\s*$', header.strip()) or "(" not in header or \
                    re.search(r"=\s*$", header.strip()):
                stack.append(("scope", i))
            else:
                name = re.findall(r"([~\w:]+)\s*\(", header)
                stack.append(("body", i, name[0] if name else "?"))
            header_start = i + 1
        elif c == "}":
            if stack:
                top = stack.pop()
                if top[0] == "body":
                    first = code.count("\n", 0, top[1]) + 1
                    last = code.count("\n", 0, i) + 1
                    out.append((top[2], first, last - first + 1))
            header_start = i + 1
        elif c == ";" and not any(s[0] == "body" for s in stack):
            header_start = i + 1
        i += 1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=120)
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    args = ap.parse_args()
    long = []
    for folder in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(args.root, folder)):
            for f in files:
                if f.endswith((".cpp", ".cu", ".h")):
                    path = os.path.join(dirpath, f)
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        for name, line, n in functions(fh.read()):
                            if n > args.limit:
                                long.append((n, os.path.relpath(path, args.root), line, name))
    bad = [x for x in long if x[3] not in ALLOWED]
    for n, path, line, name in sorted(long, reverse=True):
        mark = "" if name not in ALLOWED else f"  (allowed: {ALLOWED[name]})"
        print(f"{path}:{line}: {name}: {n} lines{mark}")
    if bad:
        print(f"{len(bad)} function(s) over {args.limit} lines: split each where it has named steps")
        return 1
    print(f"no function over {args.limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
