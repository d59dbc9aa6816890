#!/usr/bin/env python3
"""Does a refactor of a kernel file leave its code unchanged? Compares two PTX files kernel by kernel.

    nvcc -O3 -std=c++17 -arch=sm_90 -ptx -I resources/include -o before.ptx resources/baselines/x.cu
    (edit x.cu)
    nvcc ... -o after.ptx resources/baselines/x.cu
    scripts/ptx_same.py before.ptx after.ptx

A kernel counts as unchanged when its text is identical once basic-block labels (numbered by the
kernel's position in the file) and virtual registers (renamed in the order of their first use)
are normalized: the same instructions in the same order. Timings measured on the old code then
still stand; anything else must be measured again (docs/measurements/).
Exits 0 when every kernel is unchanged, 1 otherwise (the differing kernels are listed), 2 on bad
input.
"""
import re
import sys

ENTRY = re.compile(r"\.visible \.entry (\S+)\(")
LABEL = re.compile(r"\$L__BB\d+_")
REGISTER = re.compile(r"%(rd|rs|r|fd|f|p)(\d+)\b")


def kernels(path):
    try:
        text = open(path).read()
    except OSError as e:
        print("%s: cannot read: %s" % (path, e.strerror), file=sys.stderr)
        sys.exit(2)
    out = {}
    for m in ENTRY.finditer(text):
        end = text.find("\n}\n", m.start())
        if end < 0:
            print("%s: kernel %s has no closing brace" % (path, m.group(1)), file=sys.stderr)
            sys.exit(2)
        out[m.group(1)] = LABEL.sub("$L__BB_", text[m.start():end + 3])
    return out


def canonical(body):
    names, counts = {}, {}

    def rename(m):
        if m.group(0) not in names:
            kind = m.group(1)
            counts[kind] = counts.get(kind, 0) + 1
            names[m.group(0)] = "%%%s_%d" % (kind, counts[kind])
        return names[m.group(0)]

    return REGISTER.sub(rename, body)


def main():
    if len(sys.argv) != 3:
        print("usage: ptx_same.py BEFORE.ptx AFTER.ptx", file=sys.stderr)
        return 2
    a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
    identical = sum(1 for k in a if a[k] == b.get(k))
    renamed = sum(1 for k in a if k in b and a[k] != b[k] and canonical(a[k]) == canonical(b[k]))
    print("%d kernels before, %d after: %d identical, %d identical up to register names"
          % (len(a), len(b), identical, renamed))
    changed = [k for k in sorted(set(a) | set(b))
               if k not in a or k not in b or canonical(a[k]) != canonical(b[k])]
    for k in changed:
        print("changed: %s%s" % (k, "" if k in a and k in b else " (only in one file)"))
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
