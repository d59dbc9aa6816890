"""The command line (docs/kernelbench.md). A bad option is a one-line error, exit 2, never a usage page."""

import argparse

from .errors import UserError

PROG = "reach_kbworker.py"
PRECISIONS = ("fp32", "bf16", "fp16")


class HelpRequested(Exception):
    def __init__(self, text):
        super().__init__(text)
        self.text = text


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UserError(f"{PROG}: {message}")

    def print_help(self, file=None):
        raise HelpRequested(self.format_help())

    def exit(self, status=0, message=None):
        raise UserError(f"{PROG}: {message or 'exit'}".strip())


def _int_list(option):
    def parse(text):
        try:
            values = [int(v) for v in text.split(",") if v.strip() != ""]
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated integers, got '{text}'")
        if not values:
            raise argparse.ArgumentTypeError("expected at least one value")
        return values
    parse.__name__ = option
    return parse


def _scale_list(text):
    try:
        values = [float(v) for v in text.split(",") if v.strip() != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got '{text}'")
    if not values or any(v == 0 or v != v for v in values):
        raise argparse.ArgumentTypeError(f"expected non-zero numbers (inputs are never zeros), got '{text}'")
    return values


def _variant_list(text):
    values = [v.strip() for v in text.split(",") if v.strip() != ""]
    if values == ["none"]:
        return []
    if not values or any(v not in ("auto", "centred", "spike") for v in values) or \
            ("auto" in values and len(values) > 1):
        raise argparse.ArgumentTypeError(f"expected auto, none, or centred and/or spike, got '{text}'")
    return values


def _positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return v


def _non_negative_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got '{text}'")
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got '{text}'")
    return v


def _positive_float(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got '{text}'")
    if not v > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got '{text}'")
    return v


def _common(p):
    p.add_argument("--problem", required=True, metavar="P.py")
    p.add_argument("--candidate", required=True, metavar="C.py")
    p.add_argument("--precision", choices=PRECISIONS, default="fp32")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--cache-dir", metavar="D")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--fresh", action="store_true",
                   help="measure everything again: reuse no stored result (resultcache.py)")
    p.add_argument("--categories", metavar="CSV",
                   help="category table (default <worker dir>/../kernelbench/categories.csv)")
    p.add_argument("--cache-in", metavar="F",
                   help="stored results the job may reuse, as reach-verify passes them (resultcache.py)")


def build_parser():
    parser = _Parser(prog=PROG, description="Verify KernelBench-format candidates (docs/kernelbench.md).")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    sub.required = True

    sub.add_parser("probe", help="Python, PyTorch, Triton and the GPU, as JSON")

    kb = sub.add_parser("kernelbench", help="KernelBench's own verdict, reproduced")
    _common(kb)
    kb.add_argument("--trials", type=_positive_int, default=5)
    kb.add_argument("--perf-trials", type=_positive_int, default=100)
    kb.add_argument("--tolerance", type=_positive_float)
    kb.add_argument("--seed", type=int, default=42)
    kb.add_argument("--backend", choices=("auto", "cuda", "triton"), default="auto",
                    help="KernelBench's loading path: exec in one namespace (cuda) or a temporary "
                         "module file (triton); auto picks triton when the candidate imports it")

    r = sub.add_parser("reach", help="Reach's float64 oracle")
    _common(r)
    r.add_argument("--seeds", type=_int_list("--seeds"), default=[1, 2, 3])
    r.add_argument("--scales", type=_scale_list, default=[1.0, 100.0, 0.01, -1.0])
    r.add_argument("--variants", type=_variant_list, default=["auto"],
                   help="input distributions besides the scales (variants.py): centred, spike, "
                        "none, or auto (centred for fp32, spike always)")
    r.add_argument("--reps", type=_positive_int, default=100)
    r.add_argument("--warmup", type=_non_negative_int, default=10)
    r.add_argument("--no-compile-baseline", action="store_true")
    r.add_argument("--recorded-baseline-us", type=_positive_float)
    r.add_argument("--recorded-baseline-source", default="")
    r.add_argument("--thresholds", metavar="T.json")
    r.add_argument("--call-timeout", type=_positive_float, default=600.0,
                   help="seconds the judge waits for one answer of the runner")
    return parser


def parse(argv):
    return build_parser().parse_args(argv)
