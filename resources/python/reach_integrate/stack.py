"""The GPU and the stack this machine verifies on, as the KernelBench-format worker records them
in a result (`reach.device.name`, `reach.versions`: reach_kb/environment.py):

    python3 -m reach_integrate.stack --device cuda|cpu

Prints one JSON object {"gpu": NAME, "stack": {"python", "torch", "triton", "cuda", "cudnn"}}.
`reach-cli integrate` installs a winner without verifying it again only when a pass signed by
Reach here names the same GPU and stack (docs/integration.md, "What it trusts")."""

import json
import sys

from reach_kb import environment

STACK_KEYS = ("python", "torch", "triton", "cuda", "cudnn")


def main(argv):
    device = "cuda"
    if len(argv) == 2 and argv[0] == "--device" and argv[1] in ("cuda", "cpu"):
        device = argv[1]
    elif argv:
        print("reach_integrate.stack: expected --device cuda|cpu", file=sys.stderr)
        return 2
    torch = environment.import_torch()
    if torch is None:
        print(f"reach_integrate.stack: no PyTorch in {sys.executable}", file=sys.stderr)
        return 2
    versions = environment.versions(torch)
    record = environment.device_record(torch, environment.job_device(torch, device))
    stack = {k: ("" if versions.get(k) is None else str(versions.get(k))) for k in STACK_KEYS}
    print(json.dumps({"gpu": (record or {}).get("name") or "", "stack": stack}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
