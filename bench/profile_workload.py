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
    ap.add_argument("--warmup", type=float, default=workloads.SPIN_UP,
                    help="seconds of steps before profiling (GPU clocks rise)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message="fgrad: no GPU adapter found")
    work = getattr(workloads, args.workload)(args.size)
    workloads.spin_up(work.run, 1, True, seconds=args.warmup)
    profile = fg.profile(work.step, work.params, work.state, *work.data)
    print("\n".join(str(profile).splitlines()[: args.top + 2]))
    by_kind: dict[str, list[float]] = {}
    for k, kernel in zip(profile.kernels, work.step.program.kernels):
        shape = "x".join(map(str, work.step.program.graph.nodes[kernel.roots[0]].spec.shape))
        kind = f"matmul {shape}" if k.flops else k.name.split("_")[-1]
        entry = by_kind.setdefault(kind, [0.0, 0, 0])
        entry[0] += k.seconds
        entry[1] += 1
        entry[2] += k.flops
    print("by kind (time, kernels, TFLOP/s):")
    for kind, (t, n, flops) in sorted(by_kind.items(), key=lambda x: -x[1][0]):
        print(f"  {kind:<28} {t * 1e3:7.3f} ms {n:4d}  {flops / t / 1e12 if flops else 0:6.2f}")


if __name__ == "__main__":
    main()
