"""fg.scipy.integrate.trapezoid against jax.scipy.integrate: spacings, coordinates of either shape,
axes and integer samples, eagerly and compiled to WGSL, its derivatives, and the refusals."""

from __future__ import annotations

import jax
import jax.scipy.integrate as jint
import numpy as np
import pytest

import fgrad as fg
import fgrad.scipy.integrate as integrate
from jax_oracle import Draws, jax_call, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

d = Draws(59)
Y = d.f32(3, 6)
X1 = np.cumsum(d.f32(6, lo=0.1, hi=1.0))
# (y, x, dx, axis)
CASES = [(Y, None, 1.0, -1), (Y, None, 0.25, 0), (Y, X1, 1.0, -1),
         (Y, np.cumsum(d.f32(3, 6, lo=0.1, hi=1.0), 0), 1.0, 0),
         (d.i32(5), None, 2.0, -1), (Y[:, :1], None, 1.0, -1), (Y, None, d.f32(2, 6, lo=0.1, hi=1.0), 0),
         (Y, None, d.f32(5, lo=0.1, hi=1.0), -1)]


def test_values_match_jax_scipy_integrate():
    for k, (y, x, dx, axis) in enumerate(CASES):
        same(integrate.trapezoid(y, x, dx, axis), jax_call(jint.trapezoid, y, x, dx, axis), f"trapezoid case {k}",
             2e-6, 2e-6, oracle="jax.scipy.integrate")


def test_compiled_values_and_gradients():
    fn = lambda y, x: integrate.trapezoid(y, x, axis=1)  # noqa: E731
    same(fg.jit(fn)(Y, X1), jax_call(jint.trapezoid, Y, X1, axis=1), "trapezoid compiled", 2e-6, 2e-6,
         oracle="jax.scipy.integrate")
    w = d.f32(3)
    got = fg.grad(lambda y, x: fg.numpy.sum(fn(y, x) * w), argnums=(0, 1))(Y, X1)
    want = jax_call(jax.grad(lambda y, x: (jint.trapezoid(y, x, axis=1) * w).sum(), argnums=(0, 1)), Y, X1)
    same(got, want, "grad trapezoid", 2e-6, 2e-6, oracle="jax.grad")
    fg.check_grads(lambda y, dx: integrate.trapezoid(y, dx=dx, axis=0), (Y, np.float32(0.3)))


@pytest.mark.parametrize("call, words", [
    (lambda: integrate.trapezoid(Y, axis=2), r"^trapezoid: axis 2"),
    (lambda: integrate.trapezoid(Y, dx=d.f32(3), axis=0), r"^trapezoid: .*broadcast"),  # JAX refuses too
])
def test_refusals_name_the_function_and_the_user_s_line(call, words):
    with pytest.raises(fg.ShapeError, match=words) as info:
        call()
    assert "test_scipy_integrate.py:" in str(info.value)
