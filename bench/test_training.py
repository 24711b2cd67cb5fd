"""Training steps of the mlp and gpt workloads: sync at the end, or the loss read every step."""

from __future__ import annotations

import pytest

import workloads

STEPS = {"small": 10, "full": 50}  # steps per timed round


@pytest.mark.parametrize("mode", ["sync-end", "read-each"])
@pytest.mark.parametrize("name", ["mlp", "gpt"])
def test_train_steps(benchmark, name, mode, size, smoke):
    work = getattr(workloads, name)(size)
    steps = 1 if smoke else STEPS[size]
    work.run(1 if smoke else 3, read_each=True)  # warm up: compilation is done, caches are hot
    benchmark.group = f"{name}-train-{size}"
    loss, seconds = workloads.measure(benchmark, work.run, steps, mode == "read-each", rounds=1 if smoke else 5)
    assert loss == loss  # a number, not NaN
    benchmark.extra_info.update(workloads.figures(work, seconds, steps))
    benchmark.extra_info["mode"] = mode
