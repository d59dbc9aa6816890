"""Problem categories: resources/kernelbench/categories.csv (its README explains the columns).

Looked up by the problem file's stem: an exact `problem` match first, then the longest row whose
`problem` ends in `*` and is a prefix of the stem (Reach's own `reach_<op>_...` problems).
"""

import csv
import os

from .errors import UserError

COLUMNS = ("problem_id", "problem", "category", "op")


def default_path(worker_dir):
    return os.path.normpath(os.path.join(worker_dir, "..", "kernelbench", "categories.csv"))


def read_table(path):
    try:
        with open(path, "r", encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
    except FileNotFoundError:
        raise UserError(f"{path}: cannot read: no such file")
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror}")
    if not rows:
        raise UserError(f"{path}: line 1: expected the header {','.join(COLUMNS)}")
    header = [h.strip() for h in rows[0]]
    missing = [c for c in ("problem", "category") if c not in header]
    if missing:
        raise UserError(f"{path}: line 1: expected a column '{missing[0]}' in the header")
    table = []
    for n, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
            continue
        if len(row) != len(header):
            raise UserError(f"{path}: line {n}: expected {len(header)} fields, got {len(row)}")
        table.append({h: c.strip() for h, c in zip(header, row)})
    return table


def lookup(table, stem):
    """The row for `stem` (a dict with category and op) or None."""
    for row in table:
        if row["problem"] == stem:
            return row
    best = None
    for row in table:
        p = row["problem"]
        if p.endswith("*") and stem.startswith(p[:-1]):
            if best is None or len(p) > len(best["problem"]):
                best = row
    return best


def classify(path, stem):
    """(category, kernelbench_category): the finest label (`op` when set) and the coarse one."""
    row = lookup(read_table(path), stem)
    if row is None:
        return None, None
    coarse = row.get("category") or None
    return (row.get("op") or coarse), coarse
