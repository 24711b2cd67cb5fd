"""fg.lax's special functions (bessel_i0e, bessel_i1e, betainc, igamma, igammac, igamma_grad_a,
random_gamma_grad, polygamma, zeta) against jax.lax: values eagerly and compiled, and lax's
strictness (one float dtype, no rank broadcasting)."""

from __future__ import annotations

import jax.lax as jl
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

d = Draws(43)
A, X, U = d.f32(12, lo=0.2, hi=12.0), d.f32(12, lo=0.0, hi=15.0), d.f32(12, lo=0.01, hi=0.99)
ROWS = [
    ("bessel_i0e", (d.f32(12, lo=-30, hi=30),), 3e-6, 0), ("bessel_i1e", (d.f32(12, lo=-30, hi=30),), 3e-6, 0),
    ("igamma", (A, X), 1e-5, 1e-6), ("igammac", (A, X), 1e-5, 1e-6), ("igamma_grad_a", (A, X), 1e-4, 1e-6),
    ("random_gamma_grad", (A, np.concatenate([X[:-1], np.float32([0.0])])), 1e-4, 1e-6),
    ("betainc", (A, A[::-1], U), 1e-5, 1e-6), ("zeta", (A + 1.5, X + 0.1), 1e-5, 0),
    ("polygamma", (np.float32([0, 1, 2, 3, 1.5, -1, 0, 4, 2, 1, 0, 5]), A), 1e-5, 0),
]


@pytest.mark.parametrize("name, args, rtol, atol", ROWS, ids=[r[0] for r in ROWS])
def test_values_match_jax_lax(name, args, rtol, atol):
    want = jax_call(getattr(jl, name), *args)
    same(getattr(fg.lax, name)(*args), want, name, rtol, atol, oracle="jax.lax")
    same(fg.jit(getattr(fg.lax, name))(*args), want, f"{name} compiled", max(rtol, 1e-5), max(atol, 1e-6),
         oracle="jax.lax")


@pytest.mark.parametrize("call, words", [
    (lambda: fg.lax.igamma(np.float32(1), np.int32(2)), "igamma: operands must have one dtype"),
    (lambda: fg.lax.zeta(np.float32([2.0]), np.float32([[1.0]])), "zeta: operands must have one rank"),
    (lambda: fg.lax.bessel_i0e(np.int32(3)), "bessel_i0e: does not accept dtype i32"),
    (lambda: fg.lax.polygamma(np.int32(1), np.float32(2.0)), "polygamma: operands must have one dtype"),
])
def test_lax_strictness(call, words):
    with pytest.raises(fg.DTypeError if "dtype" in words else fg.ShapeError, match=words) as info:
        call()
    assert "test_lax_special.py" in str(info.value)
