"""fg.scipy.interpolate.RegularGridInterpolator against jax.scipy.interpolate's: linear and nearest
on grids of 1 to 3 axes, values with trailing axes, points outside the grid (NaN, a fill value,
extrapolated), points as a tuple of coordinates; compiled, as a pytree argument; gradients in the
values and the points; the refusals."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.scipy.interpolate import RegularGridInterpolator as Theirs

import fgrad as fg
from jax_oracle import same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

Ours = fg.scipy.interpolate.RegularGridInterpolator
rng = np.random.default_rng(0)
X, Y, Z = np.float32([0, 1, 2.5, 4]), np.float32([-1, 0, 2]), np.float32([0, 1, 3])
V2 = rng.normal(size=(4, 3)).astype(np.float32)
V3 = rng.normal(size=(4, 3, 3, 2)).astype(np.float32)  # a trailing axis of 2 carried along
P2 = np.stack([rng.uniform(-0.5, 4.5, 10), rng.uniform(-1.5, 2.5, 10)], -1).astype(np.float32)  # some outside
P3 = np.stack([rng.uniform(0, 4, 7), rng.uniform(-1, 2, 7), rng.uniform(0, 3, 7)], -1).astype(np.float32)
CASES = {"1-d": ((X,), V2, P2[:, 0]), "2-d": ((X, Y), V2, P2), "3-d, trailing axis": ((X, Y, Z), V3, P3)}


@pytest.mark.parametrize("fill", [np.nan, None, 0.5], ids=["nan", "extrapolated", "0.5"])
@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("case", CASES)
def test_values_are_jax_s(case, method, fill):
    points, values, at = CASES[case]
    want = Theirs(points, values, method=method, fill_value=fill)(at)
    same(Ours(points, values, method=method, fill_value=fill)(at), want, f"{case} {method}", 1e-5, 1e-6,
         oracle="jax.scipy.interpolate")
    same(Ours(points, values, fill_value=fill)(at, method=method), want, f"{case} {method} per call", 1e-5, 1e-6,
         oracle="jax.scipy.interpolate")


def test_coordinate_tuples_compiled_pytrees_and_gradients():
    coords = (P2[:, 0], P2[:, 1])
    same(Ours((X, Y), V2)(coords), Theirs((X, Y), V2)(coords), "coordinate tuple", 1e-5, 1e-6)
    interpolator = Ours((X, Y), V2, fill_value=None)
    same(fg.jit(lambda itp, p: itp(p))(interpolator, P2), Theirs((X, Y), V2, fill_value=None)(P2), "compiled",
         1e-5, 1e-6)

    def loss(cls, total, values, at):
        return total(cls((X, Y), values, fill_value=None)(at) ** 2)

    want = jax.grad(lambda v, p: loss(Theirs, jnp.sum, v, p), argnums=(0, 1))(V2, P2)
    same(fg.grad(lambda v, p: loss(Ours, fg.sum, v, p), argnums=(0, 1))(V2, P2), want, "gradients", 1e-5, 1e-5)


@pytest.mark.parametrize("call, error, message", [
    (lambda: Ours((X, Y), V2, method="cubic"), fg.InputError, r"method 'cubic' is not defined"),
    (lambda: Ours((X, Y), V2, bounds_error=True), fg.InputError, r"bounds_error=True is not supported"),
    (lambda: Ours((X, Y, Z), V2), fg.ShapeError, r"3 point arrays, but values has only 2 axes"),
    (lambda: Ours((X, Y[:2]), V2), fg.ShapeError, r"points\[1\] \(2,\) must be 1-d with at least 2 entries"),
    (lambda: Ours((X, Y), V2)(P3), fg.ShapeError, r"the points have 3 coordinates, the grid 2 axes"),
    (lambda: Ours((X, Y), V2, fill_value=np.zeros(2)), fg.ShapeError, r"fill_value must be a scalar"),
])
def test_refusals(call, error, message):
    with pytest.raises(error, match=rf"^RegularGridInterpolator: {message}.* at test_scipy_interpolate.py:\d+"):
        call()
