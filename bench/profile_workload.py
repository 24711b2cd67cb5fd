"""Print fg.profile's per-kernel table for one training step of a workload.

python bench/profile_workload.py gpt --size full
"""

from __future__ import annotations

import argparse
import warnings

import fgrad as fg
import workloads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", choices=["mlp", "gpt"])
    ap.add_argument("--size", choices=["small", "full"], default="small")
    ap.add_argument("--top", type=int, default=25, help="rows to print")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message="fgrad: no GPU adapter found")
    work = getattr(workloads, args.workload)(args.size)
    work.run(2, read_each=True)
    profile = fg.profile(work.step, work.params, work.state, *work.data)
    print("\n".join(str(profile).splitlines()[: args.top + 2]))
    by_kind: dict[str, float] = {}
    for k in profile.kernels:
        kind = "matmul" if k.flops else k.name.split("_")[-1]
        by_kind[kind] = by_kind.get(kind, 0.0) + k.seconds
    print("by kind:", ", ".join(f"{kind} {t * 1e3:.2f} ms" for kind, t in sorted(by_kind.items(), key=lambda x: -x[1])))


if __name__ == "__main__":
    main()
