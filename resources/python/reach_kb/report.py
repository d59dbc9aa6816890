"""JSON helpers: strict JSON (NaN and Inf become null) and the check records of the verdict."""

import json
import math


def sanitize(value):
    """Turns a result into plain JSON values: non-finite floats -> None, tuples -> lists."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): sanitize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize(v) for v in value]
    # Tensor scalars, dtypes, devices, exceptions: their text (or their number) is what is useful.
    item = getattr(value, "item", None)
    if callable(item):
        try:
            return sanitize(item())
        except Exception:
            pass
    return str(value)


def dumps(value) -> str:
    return json.dumps(sanitize(value), allow_nan=False)


def fmt(v) -> str:
    """Numbers in reasons: 3 significant digits, NaN spelled out (it never passes)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, (int, float)):
        return f"{v:.3g}"
    return str(v)


def scale_label(scale: float) -> str:
    return "x" + (f"{scale:g}")


def run_label(seed, variant) -> str:
    """Where a check was made: "seed 1 scale x100", "seed 2 centred" (variants.py)."""
    if getattr(variant, "kind", "scaled") != "scaled":
        return f"seed {seed} {variant.kind}"
    return f"seed {seed} scale {scale_label(getattr(variant, 'scale', variant))}"


def check(name, value, threshold, passed, detail):
    return {"name": name, "value": value, "threshold": threshold, "passed": bool(passed),
            "detail": detail}


def at_most(value, threshold) -> bool:
    """`value <= threshold`, where NaN (and None) never passes."""
    if value is None:
        return False
    try:
        return bool(value <= threshold)
    except TypeError:
        return False


def worst(values, larger_is_worse=True):
    """The worst of several run values; NaN is the worst of all (it must not hide)."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    for v in vals:
        if isinstance(v, float) and math.isnan(v):
            return v
    return max(vals) if larger_is_worse else min(vals)
