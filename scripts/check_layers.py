#!/usr/bin/env python3
"""Checks DESIGN.md's hard rules on the include graph, so the architecture cannot drift silently.

- core/ includes no Qt, no CUDA and no QCustomPlot header, and nothing from gpu/, ui/ or app/;
- each core folder includes only itself and the folders below it, in the order of CORE_LAYERS;
- gpu/ includes no Qt header and nothing from ui/ or app/;
- only ui/ (and the app/tests that drive it) includes qcustomplot.h.

Exit 0 when every rule holds, 1 with one line per violation (file:line: what) otherwise.
Usage: scripts/check_layers.py [REPO_ROOT]
"""
import os
import re
import sys

# Bottom to top: a folder may include itself and any folder to its left.
CORE_LAYERS = ["base", "trace", "analysis", "headroom", "verify", "records", "store", "project"]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
QT = re.compile(r"^(Q[A-Za-z0-9]+|Qt[A-Za-z]+/.*|q[a-z]+\.h)$")
CUDA = re.compile(r"^(cuda[a-zA-Z_]*\.h|cuda/.*|cublas.*\.h|cufft.*|curand.*|nvml\.h|nvrtc\.h|"
                  r"cooperative_groups.*|mma\.h|cuda_runtime.*)$")
SOURCE = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".in")


def files_under(root, top):
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for n in sorted(names):
            if n.endswith(SOURCE):
                yield os.path.join(dirpath, n)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield lineno, m.group(1), m.group(2)


def check(root):
    problems = []
    rank = {name: i for i, name in enumerate(CORE_LAYERS)}
    for path in files_under(root, "core"):
        rel = os.path.relpath(path, root)
        parts = rel.split(os.sep)
        if len(parts) < 3 or parts[1] not in rank:
            problems.append(f"{rel}: core files live in one of the folders {', '.join(CORE_LAYERS)}")
            continue
        mine = rank[parts[1]]
        for lineno, kind, name in includes(path):
            where = f"{rel}:{lineno}"
            if kind == "<" and (QT.match(name) or name.startswith("Qt")):
                problems.append(f"{where}: core includes the Qt header <{name}>")
            if CUDA.match(name):
                problems.append(f"{where}: core includes the CUDA header {name}")
            if name == "qcustomplot.h":
                problems.append(f"{where}: only ui/ includes qcustomplot.h")
            if kind == '"':
                top = name.split("/")[0]
                if top in ("gpu", "ui", "app"):
                    problems.append(f"{where}: core includes {name} from a layer above core")
                elif top == "core":
                    sub = name.split("/")
                    if len(sub) < 3 or sub[1] not in rank:
                        problems.append(f"{where}: include core headers by their folder "
                                        f"(\"core/<folder>/<file>.h\"), not \"{name}\"")
                    elif rank[sub[1]] > mine:
                        problems.append(f"{where}: core/{parts[1]} includes {name}, a folder "
                                        f"above it (order: {' < '.join(CORE_LAYERS)})")
                elif "/" not in name and not name.endswith(".h.in"):
                    # A bare "x.h" is either generated next to its folder or a relative include.
                    if not os.path.exists(os.path.join(os.path.dirname(path), name)) and \
                            name not in GENERATED:
                        problems.append(f"{where}: include \"{name}\" by its path from the root")
    for path in files_under(root, "gpu"):
        rel = os.path.relpath(path, root)
        for lineno, kind, name in includes(path):
            if kind == "<" and QT.match(name):
                problems.append(f"{rel}:{lineno}: gpu includes the Qt header <{name}>")
            if kind == '"' and name.split("/")[0] in ("ui", "app"):
                problems.append(f"{rel}:{lineno}: gpu includes {name} from a layer above it")
    for top in ("core", "gpu", "app"):
        for path in files_under(root, top):
            rel = os.path.relpath(path, root)
            for lineno, kind, name in includes(path):
                if name == "qcustomplot.h":
                    problems.append(f"{rel}:{lineno}: only ui/ includes qcustomplot.h")
    return problems


GENERATED = {"defaultrules.h", "defaultthresholds.h"}

if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = check(os.path.abspath(root))
    for p in found:
        print(p)
    if found:
        print(f"check_layers: {len(found)} violation(s)", file=sys.stderr)
        sys.exit(1)
    print("check_layers: core, gpu and ui keep their layers")
