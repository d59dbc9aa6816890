#!/usr/bin/env python3
"""scripts/ptx_same.py on small PTX texts: what it must accept as the same code and what not."""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "ptx_same.py")

KERNEL = """.visible .entry {name}(
\t.param .u64 p0
)
{{
\tld.global.nc.v2.f32 \t{{%f{a}, %f{b}}}, [%rd1];
\tmax.f32 \t%f3, %f{x}, %f{y};
\t@%p1 bra \t$L__BB{n}_2;
$L__BB{n}_2:
\t{op}.f32 \t%f4, %f3, 0f3F800000;
\tret;
}}
"""


def ptx(*kernels):
    return "".join(KERNEL.format(**k) for k in kernels)


def run(before, after):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, text in enumerate((before, after)):
            paths.append(os.path.join(d, "%d.ptx" % i))
            with open(paths[-1], "w") as f:
                f.write(text)
        r = subprocess.run([sys.executable, SCRIPT] + paths, capture_output=True, text=True)
        return r.returncode, r.stdout


def main():
    k = dict(name="k1", a=1, b=2, x=1, y=2, n=0, op="add")
    failures = []

    def expect(what, rc, before, after, text=None):
        got, out = run(before, after)
        if got != rc or (text and text not in out):
            failures.append("%s: exit %d (expected %d)\n%s" % (what, got, rc, out))

    expect("same text", 0, ptx(k), ptx(k), "1 identical")
    expect("labels numbered by position", 0, ptx(k), ptx(dict(k, n=7)), "1 identical")
    expect("registers renamed", 0, ptx(k), ptx(dict(k, a=9, b=8, x=9, y=8)), "1 identical up to register names")
    expect("kernels in another order", 0, ptx(k, dict(k, name="k2")), ptx(dict(k, name="k2"), k))
    expect("an instruction changed", 1, ptx(k), ptx(dict(k, op="mul")), "changed: k1")
    expect("operands swapped", 1, ptx(k), ptx(dict(k, x=2, y=1)), "changed: k1")
    expect("a kernel gone", 1, ptx(k, dict(k, name="k2")), ptx(k), "changed: k2 (only in one file)")
    for f in failures:
        print("FAIL", f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
