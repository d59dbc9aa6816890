"""The oracle's tolerances: resources/oracle/thresholds.json (shared with the C++ verifier), read
from `<worker dir>/../oracle/thresholds.json`; `--thresholds FILE` overrides keys."""

import json
import os

from .errors import UserError

KEYS = ("rel_frobenius", "norm_max_error", "invariant", "written_fraction")


def default_path(worker_dir):
    return os.path.normpath(os.path.join(worker_dir, "..", "oracle", "thresholds.json"))


def _read_json(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise UserError(f"{path}: cannot read: no such file")
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        raise UserError(f"{path}: line {e.lineno}: expected JSON ({e.msg})")


def _numbers(path, table, where):
    out = {}
    if not isinstance(table, dict):
        raise UserError(f"{path}: {where}: expected an object")
    for k in KEYS:
        if k in table:
            v = table[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise UserError(f"{path}: key {where + '.' if where else ''}{k}: expected a number >= 0")
            out[k] = float(v)
    return out


def load(worker_dir, precision, override_path=None):
    path = default_path(worker_dir)
    data = _read_json(path)
    try:
        table = data["precisions"][precision]
    except (KeyError, TypeError):
        raise UserError(f"{path}: key precisions.{precision}: expected the {precision} tolerances")
    t = _numbers(path, table, f"precisions.{precision}")
    missing = [k for k in KEYS if k not in t]
    if missing:
        raise UserError(f"{path}: key precisions.{precision}.{missing[0]}: expected a number")
    if override_path:
        o = _read_json(override_path)
        # Either the flat form of docs/verifier.md or the same shape as the shipped table.
        if isinstance(o, dict) and "precisions" in o:
            o = (o.get("precisions") or {}).get(precision, {})
            t.update(_numbers(override_path, o, f"precisions.{precision}"))
        else:
            t.update(_numbers(override_path, o, ""))
    return t


def kernelbench_tolerance(precision, worker_dir=None):
    """KernelBench's allclose tolerance at `precision`, from the same table (its key
    kernelbench_tolerance): one number for the judge, the reproduction and the C++ oracle."""
    path = default_path(worker_dir or os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    data = _read_json(path)
    table = data.get("kernelbench_tolerance") if isinstance(data, dict) else None
    v = table.get(precision) if isinstance(table, dict) else None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
        raise UserError(f"{path}: key kernelbench_tolerance.{precision}: expected a number > 0")
    return float(v)
