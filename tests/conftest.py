"""Shared test machinery: golden files for WGSL, and the JAX oracle's compiler settings."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

# JAX is the oracle of many tests, and most of their time is XLA compiling each function once: its
# CPU programs are compiled without LLVM's optimizations (the same operations, a quarter less time
# for the oracle-heavy files). Set before JAX starts its backend.
_NO_OPTIMIZATION = "--xla_backend_optimization_level=0"
if _NO_OPTIMIZATION not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_NO_OPTIMIZATION}".strip()

GOLDEN_DIR = Path(__file__).parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden/*.wgsl from the current output")


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """`golden(case, text)`: compare `text` with tests/golden/<case>.wgsl.

    A missing golden is written and the test fails; a mismatch writes
    <case>.obtained.wgsl beside it and fails with a unified diff;
    `pytest --update-golden` rewrites the goldens instead.
    """
    update = request.config.getoption("--update-golden")

    def check(case: str, text: str) -> None:
        path = GOLDEN_DIR / f"{case}.wgsl"
        obtained = GOLDEN_DIR / f"{case}.obtained.wgsl"
        if update:
            path.write_text(text)
            obtained.unlink(missing_ok=True)
            return
        if not path.exists():
            path.write_text(text)
            pytest.fail(f"golden {path.name} was missing and has been written; check it in and rerun")
        expected = path.read_text()
        if text != expected:
            obtained.write_text(text)
            diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                                f"golden/{case}.wgsl", f"golden/{case}.obtained.wgsl"))
            pytest.fail(f"WGSL differs from golden {path.name} (obtained written beside it):\n{diff}")
        obtained.unlink(missing_ok=True)

    return check


@pytest.fixture(autouse=True, scope="session")
def _private_program_cache(tmp_path_factory: pytest.TempPathFactory):
    """Compiled programs are cached on disk; the tests use a folder of their own."""
    import os

    os.environ["FGRAD_CACHE_DIR"] = str(tmp_path_factory.mktemp("fgrad-cache"))
    yield
