"""Time to first step of the gpt workload, each in a fresh process: with an empty program cache
(cold), then again with the cache the first left (warm). Phases are in extra_info."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("first_step.py")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("program-cache")


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_time_to_first_step(benchmark, cache, size, cache_dir):
    env = {**os.environ, "FGRAD_CACHE_DIR": str(cache_dir)}
    runs = []

    def fresh_process() -> dict:
        out = subprocess.run([sys.executable, str(SCRIPT), "--size", size], env=env, capture_output=True, text=True,
                             check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        return runs[-1]

    result = benchmark.pedantic(fresh_process, rounds=1, iterations=1)
    benchmark.group = f"compile-{size}"
    assert result["program_cache"] == cache  # the cold run fills the cache the warm run reads
    benchmark.extra_info.update(result)
