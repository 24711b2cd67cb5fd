"""Train the gpt workload (small) over the devices of a jax.sharding.Mesh: the loss and its Adam
step written with fgrad, exported with fg.export.to_jax, run by jax.jit with shardings; fgrad's own
compiled step runs beside it on the same batches, and both losses are printed side by side.

XLA_FLAGS=--xla_force_host_platform_device_count=8 python -m fgrad.examples.sharded [--steps 5] [--model-parallel]

Data parallel (the default): each device holds the parameters and 1/n of the batch; JAX sums the
gradients across devices. `--model-parallel`: the weights are split along their last axis over
the devices instead, the batch replicated.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np

import fgrad as fg


def losses(steps: int, model_parallel: bool = False) -> list[tuple[float, float]]:
    """(the exported step's loss on the mesh, fgrad's own step's loss) for each step."""
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    config = fg.nn.GPTConfig(vocab=65, context=32, width=64, heads=2, layers=2)
    rng = np.random.default_rng(0)
    params = fg.nn.init_gpt(rng, config)
    batch = 8
    batches = [(rng.integers(0, config.vocab, (batch, config.context)).astype(np.int32),
                rng.integers(0, config.vocab, (batch, config.context)).astype(np.int32)) for _ in range(steps)]

    def loss(params: Any, tokens: Any, targets: Any) -> Any:
        return fg.nn.cross_entropy(fg.nn.gpt(params, tokens, config), targets)

    step = fg.adam_step(fg.trace(loss, params, *batches[0]), lr=3e-4)
    state = fg.adam_init(params)

    mesh = Mesh(np.array(jax.devices()), ("d",))
    n = len(jax.devices())

    def placed(x: np.ndarray, split_rows: bool) -> Any:
        if model_parallel:  # a weight's last axis over the devices where it divides
            wide = x.ndim == 2 and x.shape[-1] % n == 0
            spec = PartitionSpec(None, "d") if wide else PartitionSpec()
        else:  # the batch's rows over the devices, the rest replicated
            spec = PartitionSpec("d") if split_rows else PartitionSpec()
        return jax.device_put(x, NamedSharding(mesh, spec))

    sharded = jax.jit(fg.export.to_jax(step))
    p = jax.tree_util.tree_map(lambda x: placed(np.asarray(x), False), params)
    s = jax.tree_util.tree_map(lambda x: placed(np.asarray(x), False), state)
    own = fg.compile(step)
    fp, fs = fg.device_put(params), fg.device_put(state)
    out = []
    for tokens, targets in batches:
        p, s, l_sharded = sharded(p, s, placed(tokens, not model_parallel), placed(targets, not model_parallel))
        fp, fs, l_own = own(fp, fs, tokens, targets)
        out.append((float(l_sharded), float(l_own)))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--model-parallel", action="store_true", help="split the weights over the devices, not the batch")
    args = ap.parse_args(argv)
    import jax

    devices = jax.devices()
    print(f"{len(devices)} devices: {', '.join(str(d) for d in devices[:4])}{' ...' if len(devices) > 4 else ''}")
    for i, (a, b) in enumerate(losses(args.steps, args.model_parallel)):
        print(f"step {i}: loss {a:.6f} on the mesh, {b:.6f} fgrad's own step")


if __name__ == "__main__":
    main()
