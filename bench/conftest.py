"""Benchmark options and the workloads of the project's benchmark notes (mlp, gpt, matmul).

`pytest bench` runs the small sizes; `pytest bench --size full` the full ones;
`pytest bench --benchmark-disable` runs each once, as a smoke check.
`python bench/compare.py --size full` prints fgrad's training steps and matmul beside JAX
(jit, highest precision) and PyTorch (eager), from the project's peer scripts, in one table.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:fgrad. no GPU adapter found")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--size", choices=("small", "full"), default="small", help="workload size (default small)")


@pytest.fixture(scope="session")
def size(request: pytest.FixtureRequest) -> str:
    return request.config.getoption("--size")


@pytest.fixture(scope="session")
def smoke(request: pytest.FixtureRequest) -> bool:
    """True under --benchmark-disable: run each workload briefly, just to see it work."""
    return bool(request.config.getoption("benchmark_disable"))


SQUARE = {"small": [256, 512], "full": [1024, 2048, 4096]}
# The gpt workload's matmul shapes (B*T = 4096 rows; attention per batch and head).
GPT_SHAPES = {"small": [((256, 64), (64, 256)), ((16, 32, 32), (16, 32, 32))],
              "full": [((4096, 256), (256, 256)), ((4096, 256), (256, 1024)), ((4096, 1024), (1024, 256)),
                       ((128, 128, 64), (128, 64, 128)), ((128, 128, 128), (128, 128, 64))]}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    size = metafunc.config.getoption("size")
    if "square_n" in metafunc.fixturenames:
        metafunc.parametrize("square_n", SQUARE[size])
    if "gpt_shapes" in metafunc.fixturenames:
        metafunc.parametrize("gpt_shapes", GPT_SHAPES[size], ids=lambda s: "x".join(map(str, s[0])) + "@" + "x".join(map(str, s[1])))
