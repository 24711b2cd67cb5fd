"""`import fgrad` stays light: the GPU, JAX and the shape checkers are loaded when first used."""

from __future__ import annotations

import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", f"import sys\n{code}\nprint(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return {m.split(".")[0] for m in out.split()}


def test_import_loads_no_gpu_no_jax_no_checkers():
    loaded = _modules_after("import fgrad")
    assert not loaded & {"wgpu", "jax", "jaxlib", "jaxtyping", "beartype"}


def test_layer_shape_check_never_imports_jax():
    code = ("import numpy as np, fgrad as fg\n"
            "p = fg.nn.init_linear(np.random.default_rng(0), 3, 2)\n"
            "fg.trace(fg.nn.linear, p, fg.spec((4, 3)))\n"
            "try:\n    fg.trace(fg.nn.linear, p, fg.spec((4, 5)))\nexcept fg.ShapeError:\n    pass\n"
            "else:\n    raise SystemExit('no ShapeError')")
    loaded = _modules_after(code)
    assert "jaxtyping" in loaded and "beartype" in loaded  # the check ran
    assert not loaded & {"jax", "jaxlib"}
