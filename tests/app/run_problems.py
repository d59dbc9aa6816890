"""Runs each extracted problem file once on this machine's CPU PyTorch: loads it, builds its
Model from get_init_inputs() and calls it on get_inputs(); the output must be exactly a
torch.Tensor. One line per file ("ok", or "FAIL" and why); exit status 1 if any failed.

Debian's CPU PyTorch (1.13) has no bfloat16 kernel for some operators (embedding_bag): such a
problem is run again with its tensors in float32, which still checks what the file builds
(shapes, index ranges, offsets, the overload it calls), and the line says so."""
import sys
import time
import types

import torch


def run(path):
    src = open(path, encoding="utf-8").read()
    note = ""
    for attempt in (src, src.replace("torch.bfloat16", "torch.float32")):
        module = types.ModuleType("problem")
        try:
            exec(compile(attempt, path, "exec"), module.__dict__)
            torch.manual_seed(0)
            out = module.Model(*module.get_init_inputs())(*module.get_inputs())
            if type(out) is not torch.Tensor:
                return f"FAIL returned {type(out).__name__}, not a torch.Tensor"
            return "ok" + note
        except Exception as e:  # the line says what broke
            why = f"FAIL {type(e).__name__}: {str(e)[:300]}"
            if "bfloat16" not in str(e).lower():
                return why
            note = " (in float32: no bfloat16 kernel on this CPU PyTorch)"
    return why


def main():
    failed = 0
    for path in sys.argv[1:]:
        t = time.time()
        line = run(path)
        failed += line.startswith("FAIL")
        print(f"{path}: {line} ({time.time() - t:.2f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
