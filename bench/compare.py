"""fgrad beside JAX (jit, highest precision) and PyTorch (eager) on the benchmark workloads, in one run.

python bench/compare.py --size full [--peers DIR] [--steps N] [--json PATH]

fgrad's mlp and gpt training steps are timed as bench/test_training.py times them (3 steps to warm up,
then the median of 5 rounds), its matmul as bench/test_kernels.py does; each peer script found in DIR
(default ../shared/peers beside the repository, else .peers in it) runs in a subprocess with the same
--size and --steps, and its printed lines are parsed. One markdown table of figures and ratios follows.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import test_kernels
import test_training
import workloads

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 5  # timed rounds of fgrad's steps, as bench/test_training.py
MATMUL_N = {"small": 512, "full": 4096}
PEERS = {"jax": ("jax_peer.py", "JAX jit (highest)", ["--precision", "highest"]),
         "torch": ("torch_peer.py", "PyTorch eager", [])}
# the lines jax_peer.py and torch_peer.py print, e.g.
# `jax-0.4.30-gpu-highest gpt[full] steps/s sync-end=812.3 read-each=700.1 tokens/s=3327181`
LINE = re.compile(r"^(?P<tag>\S+) (?P<name>mlp|gpt)\[\w+\] steps/s sync-end=(?P<sync>[\d.]+) "
                  r"read-each=(?P<read>[\d.]+)(?: tokens/s=(?P<tokens>\d+))?")
ROWS = [("mlp", "sync-end", "steps/s"), ("mlp", "read-each", "steps/s"), ("gpt", "sync-end", "steps/s"),
        ("gpt", "read-each", "steps/s"), ("gpt", "sync-end", "tokens/s"), ("matmul", "", "GFLOP/s")]


class Rounds:
    """Stands in for pytest-benchmark's fixture, so that the bench's own timing code runs unchanged:
    `pedantic` runs its rounds, `extra_info` collects the figures."""

    def __init__(self) -> None:
        self.extra_info: dict[str, Any] = {}
        self.group = ""

    def pedantic(self, fn: Any, rounds: int, iterations: int) -> Any:
        for _ in range(rounds * iterations):
            out = fn()
        return out


def fgrad_figures(size: str, steps: int) -> tuple[dict[tuple[str, str, str], float], str]:
    """fgrad's figure for each row, and the name of the adapter it ran on."""
    figures = {}
    for name in ("mlp", "gpt"):
        work = getattr(workloads, name)(size)
        work.run(3, read_each=True)  # warm up: compilation is done, caches are hot
        for mode in ("sync-end", "read-each"):
            _, seconds = workloads.measure(Rounds(), work.run, steps, mode == "read-each", rounds=ROUNDS)
            info = workloads.figures(work, seconds, steps)
            figures[name, mode, "steps/s"] = info["steps_per_s"]
            if name == "gpt" and mode == "sync-end":
                figures[name, mode, "tokens/s"] = info["tokens_per_s"]
    matmul = Rounds()
    n = MATMUL_N[size]
    test_kernels._matmul(matmul, (n, n), (n, n), smoke=False)
    figures["matmul", "", "GFLOP/s"] = matmul.extra_info["gflops"]
    return figures, matmul.extra_info["adapter"]


def peer_figures(script: Path, size: str, steps: int, extra: list[str]) -> tuple[dict, str]:
    """A peer's figure for each row it reports, and its tag (library, version, backend), else why it has none."""
    if not script.exists():
        return {}, f"not found in {script.parent}"
    run = subprocess.run([sys.executable, script.name, "--size", size, "--steps", str(steps), *extra],
                         cwd=script.parent, capture_output=True, text=True)
    if run.returncode:
        missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", run.stderr)
        last = (run.stderr.strip().splitlines() or ["no message"])[-1]
        return {}, f"not installed ({missing[1]})" if missing else f"failed: {last}"
    figures, tag = {}, ""
    for match in filter(None, map(LINE.match, run.stdout.splitlines())):
        tag = match["tag"]
        figures[match["name"], "sync-end", "steps/s"] = float(match["sync"])
        figures[match["name"], "read-each", "steps/s"] = float(match["read"])
        if match["tokens"]:
            figures[match["name"], "sync-end", "tokens/s"] = float(match["tokens"])
    return figures, tag or f"no figures in its output: {run.stdout.strip()[-200:]!r}"


def table(fgrad: dict, peers: dict[str, dict]) -> list[str]:
    """The markdown table: one row per workload and mode, figures and fgrad's ratio to each peer."""
    labels = [PEERS[p][1] for p in PEERS]
    lines = ["| workload | mode | unit | fgrad | " + " | ".join(labels) + " | "
             + " | ".join(f"fgrad/{label.split()[0]}" for label in labels) + " |",
             "|---" * (4 + 2 * len(PEERS)) + "|"]
    for row in ROWS:
        cells = [_number(fgrad.get(row))] + [_number(peers[p].get(row)) for p in PEERS]
        ratios = [f"{fgrad[row] / peers[p][row]:.2f}x" if peers[p].get(row) else "" for p in PEERS]
        lines.append("| " + " | ".join([*row, *cells, *ratios]) + " |")
    return lines


def _number(x: float | None) -> str:
    return "" if x is None else f"{x:,.1f}" if x < 1000 else f"{x:,.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=["small", "full"], default="small")
    ap.add_argument("--peers", type=Path, help="folder of jax_peer.py and torch_peer.py")
    ap.add_argument("--steps", type=int, help="steps per timed round (default: bench/test_training.py's)")
    ap.add_argument("--json", type=Path, help="also write the figures here as JSON")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message="fgrad: no GPU adapter found")
    steps = args.steps or test_training.STEPS[args.size]
    peers_dir = args.peers or next((d for d in (ROOT.parent / "shared" / "peers", ROOT / ".peers") if d.is_dir()),
                                   ROOT / ".peers")
    fgrad, adapter = fgrad_figures(args.size, steps)
    peers, tags = {}, {}
    for p, (script, _, extra) in PEERS.items():
        peers[p], tags[p] = peer_figures(peers_dir / script, args.size, steps, extra)
    print(f"size {args.size}, {steps} steps per round; fgrad on {adapter}; "
          + "; ".join(f"{PEERS[p][1]}: {tags[p]}" for p in PEERS) + "\n")
    print("\n".join(table(fgrad, peers)))
    if args.json:
        rows = [dict(workload=w, mode=m, unit=u, fgrad=fgrad.get((w, m, u)),
                     **{p: peers[p].get((w, m, u)) for p in PEERS}) for w, m, u in ROWS]
        args.json.write_text(json.dumps(dict(size=args.size, steps=steps, adapter=adapter, peers=tags, rows=rows),
                                        indent=1) + "\n")


if __name__ == "__main__":
    main()
