"""fg.export.to_jax: every op-table row's graph, exported, computes what `interpret` computes
(values and dtypes, under jax.jit; each primitive's first row and the rows exact to an ulp
eagerly); gradients through jax.grad of the export, under jax.jit, match fgrad's grad; the
sharded example's losses match fgrad's own steps."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import fgrad as fg  # noqa: E402
from fgrad.export import to_jax  # noqa: E402
from op_table import DTYPE_CASES, F16_CASES, OP_CASES, U32_CASES, f64, make, trace  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

ROWS = [c for c in (*OP_CASES, *DTYPE_CASES, *F16_CASES, *U32_CASES) if c.specs is None]
EAGER = {id(c) for c in {c.prim: c for c in reversed(ROWS)}.values()}  # each primitive's first row also eagerly
# Rows that pin values to an ulp or two run eagerly only: under jax.jit XLA fuses them and contracts multiply-adds
# (trigamma's series moves by 1e-6), a change in JAX's rounding, not in the export.
EXACT = {id(c) for c in ROWS if c.rtol < 1e-6}


def _close(got: np.ndarray, want: np.ndarray, case, what: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape, want.dtype, want.shape)
    if want.dtype.kind == "f":
        tol = 10 * case.rtol if want.dtype == np.float16 else case.rtol
        np.testing.assert_allclose(got, want, rtol=tol, atol=max(case.atol, tol * 1e-1), err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("case", ROWS, ids=[c.id for c in ROWS])
def test_row_exported_to_jax_matches_interpret(case):
    args = make(case)
    graph = trace(case, args)
    want = np.asarray(fg.interpret(graph, *args))
    exported = to_jax(graph)
    if id(case) not in EXACT:
        _close(np.asarray(jax.jit(exported)(*args)), want, case, f"{case.id}: jax.jit(to_jax)")
    if id(case) in EAGER | EXACT:
        _close(np.asarray(exported(*args)), want, case, f"{case.id}: to_jax")


def _differentiable(case) -> bool:
    """A smooth row with an f32 argument and a float result."""
    args = make(case)
    return case.smooth and case.specs is None and any(np.asarray(a).dtype == np.float32 for a in args) and \
        np.asarray(case.ref(*(f64(a) for a in args))).dtype.kind == "f"


GRAD_ROWS = [c for c in OP_CASES if _differentiable(c)]


@pytest.mark.parametrize("case", GRAD_ROWS, ids=[c.id for c in GRAD_ROWS])
def test_jax_grad_of_an_exported_row_matches_fgrads_grad(case):
    """jax.grad of the export of sum(f(x) * w), under jax.jit, against fgrad's grad of it, for every f32
    argument."""
    args = make(case)
    floats = tuple(k for k, a in enumerate(args) if np.asarray(a).dtype == np.float32)
    out = np.asarray(fg.interpret(trace(case, args), *args))
    w = np.random.default_rng(3).normal(size=out.shape).astype(np.float32)
    loss = fg.trace(lambda *a: fg.sum(case.fn(*a) * w), *args)
    want = fg.interpret(fg.grad(loss, argnums=floats), *args)
    got = jax.jit(jax.grad(to_jax(loss), argnums=floats))(*(jnp.asarray(a) for a in args))
    for g, e in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-4, atol=1e-5, err_msg=case.id)


def test_an_exported_function_traces_once_per_signature_and_vmaps():
    def f(x, p):
        return fg.tanh(x @ p["w"]) * 2.0

    p = {"w": np.random.default_rng(0).normal(size=(3, 2)).astype(np.float32)}
    exported = to_jax(f)
    x = np.ones((4, 3), np.float32)
    np.testing.assert_allclose(np.asarray(exported(x, p)), np.tanh(x @ p["w"]) * 2.0, rtol=1e-6)
    batched = jax.vmap(exported, in_axes=(0, None))(np.ones((5, 4, 3), np.float32), p)
    assert batched.shape == (5, 4, 2)


def test_the_sharded_example_matches_fgrads_own_steps():
    """The gpt (small) Adam step exported and run data-parallel over 8 CPU devices, then model-parallel:
    the losses of fgrad's own compiled step at every step."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    for flags in ([], ["--model-parallel"]):
        run = subprocess.run([sys.executable, "-m", "fgrad.examples.sharded", "--steps", "3", *flags], env=env,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-3000:]
        assert run.stdout.startswith("8 devices"), run.stdout
        steps = [line.split() for line in run.stdout.splitlines() if line.startswith("step")]
        assert len(steps) == 3
        for words in steps:
            np.testing.assert_allclose(float(words[3].rstrip(",")), float(words[7]), rtol=1e-4)
