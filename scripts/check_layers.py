#!/usr/bin/env python3
"""Checks DESIGN.md's hard rules on the include graph, so the architecture cannot drift silently.

- core/ includes no Qt, no CUDA and no QCustomPlot header, and nothing from gpu/, ui/ or app/;
- each core folder includes only itself and the folders below it, in the order of CORE_LAYERS;
- gpu/ includes no Qt header and nothing from ui/ or app/;
- only ui/ (and the app/tests that drive it) includes qcustomplot.h;
- ui/ lives in rooms (UI_ROOMS, bottom to top); a room includes only itself, the rooms below it and
  the shell's base (UI_BASE); the rest of the shell (mainwindow, snapshot, ...) is above every
  room, and the base includes no room.

Exit 0 when every rule holds, 1 with one line per violation (file:line: what) otherwise.
Usage: scripts/check_layers.py [REPO_ROOT]
"""
import os
import re
import sys

# Bottom to top: a folder may include itself and any folder to its left.
CORE_LAYERS = ["base", "trace", "analysis", "distributed", "headroom", "benchmark", "verify", "records", "store",
               "project", "batch", "ownbenchmark", "capture"]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
QT = re.compile(r"^(Q[A-Za-z0-9]+|Qt[A-Za-z]+/.*|q[a-z]+\.h)$")
CUDA = re.compile(r"^(cuda[a-zA-Z_]*\.h|cuda/.*|cublas.*\.h|cufft.*|curand.*|nvml\.h|nvrtc\.h|"
                  r"cooperative_groups.*|mma\.h|cuda_runtime.*)$")
SOURCE = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".in")

# ui/'s rooms, bottom to top, and the shell files at ui/'s top that every room may use.
UI_ROOMS = ["models", "figure", "plots", "verify", "dialogs", "views"]
UI_BASE = {"qtstrings", "theme", "session", "messagelog", "recentfolders", "cliprogram"}


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
    problems += check_ui(root)
    return problems


def check_ui(root):
    problems = []
    rank = {name: i for i, name in enumerate(UI_ROOMS)}
    for path in files_under(root, "ui"):
        rel = os.path.relpath(path, root)
        parts = rel.split(os.sep)
        stem = os.path.splitext(parts[-1])[0]
        if len(parts) == 2:
            mine = -1 if stem in UI_BASE else len(UI_ROOMS)  # the shell: below or above all
        elif len(parts) == 3 and parts[1] in rank:
            mine = rank[parts[1]]
        else:
            problems.append(f"{rel}: ui files live at ui/'s top (the shell) or in one of the rooms "
                            f"{', '.join(UI_ROOMS)}")
            continue
        for lineno, kind, name in includes(path):
            where = f"{rel}:{lineno}"
            if kind != '"':
                continue
            sub = name.split("/")
            if sub[0] != "ui":
                if "/" not in name and not name.endswith(".moc") and \
                        os.path.exists(os.path.join(root, "ui", name)):
                    problems.append(f"{where}: include \"{name}\" by its path from the root")
                continue
            if len(sub) == 2:
                target = -1 if os.path.splitext(sub[1])[0] in UI_BASE else len(UI_ROOMS)
            elif len(sub) == 3 and sub[1] in rank:
                target = rank[sub[1]]
            else:
                problems.append(f"{where}: {name} is in no room of ui/")
                continue
            if target > mine:
                problems.append(f"{where}: {rel} includes {name}, above it (rooms: "
                                f"shell base < {' < '.join(UI_ROOMS)} < shell)")
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
    print("check_layers: core, gpu and ui keep their layers and rooms")
