"""fg.scipy.ndimage.map_coordinates against jax.scipy.ndimage: orders 0 and 1 in every mode, float
and integer inputs and coordinates, points inside, on and past the edges, eagerly and compiled to
WGSL, derivatives in the input and the coordinates, vmap, and the refusals."""

from __future__ import annotations

import jax
import jax.scipy.ndimage as jnd
import numpy as np
import pytest

import fgrad as fg
import fgrad.scipy.ndimage as ndimage
from jax_oracle import Draws, jax_call, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

d = Draws(53)
MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
IMAGE = d.f32(4, 5)
VOLUME = d.f32(3, 2, 4)
INT_IMAGE = d.i32(4, 5, lo=-50, hi=50)
# Points well outside both edges, exactly on them, and halves (rounded away from zero by order 0).
EDGES = np.float32([-4.5, -1.0, -0.5, 0.0, 0.5, 2.5, 3.0, 3.5, 4.0, 7.25])
POINTS = [np.concatenate([d.f32(14, lo=-3.0, hi=8.0), EDGES]),
          np.concatenate([d.f32(14, lo=-3.0, hi=8.0), EDGES[::-1]])]
CASES = [(IMAGE, POINTS), (INT_IMAGE, POINTS), (VOLUME, [d.f32(7, lo=-2, hi=5)] * 3),
         (IMAGE[0], [np.int32([-3, 0, 2, 4, 6, 11])]), (np.float32([[2.0]]), [EDGES, EDGES])]


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("mode", MODES)
def test_values_match_jax_scipy_ndimage(mode, order):
    """Every input and coordinate set in one mode and order, with a cval that integers truncate."""
    for k, (x, coords) in enumerate(CASES):
        got = ndimage.map_coordinates(x, coords, order, mode, cval=2.75)
        want = jax_call(jnd.map_coordinates, x, coords, order, mode, cval=2.75)
        same(got, want, f"map_coordinates case {k} {mode} order {order}", 1e-6, 1e-6, oracle="jax.scipy.ndimage")


@pytest.mark.parametrize("mode", ["constant", "mirror"])
def test_compiled_values_match_the_eager_ones(mode):
    fn = lambda x, i, j: ndimage.map_coordinates(x, [i, j], 1, mode, cval=-1.0)  # noqa: E731
    args = (IMAGE, *POINTS)
    same(fg.jit(fn)(*args), fn(*args), f"map_coordinates {mode} compiled", 1e-6, 1e-6)
    fn0 = lambda x, i, j: ndimage.map_coordinates(x, [i, j], 0, "reflect")  # noqa: E731
    same(fg.jit(fn0)(INT_IMAGE, *POINTS), fn0(INT_IMAGE, *POINTS), "map_coordinates order 0 compiled", 0, 0)


@pytest.mark.parametrize("mode", ["constant", "wrap"])
def test_gradients_match_jax(mode):
    """Linear interpolation differentiates in the input and in the coordinates (away from the
    integer coordinates where it has a kink), as jax.grad gives it."""
    coords = [d.f32(6, lo=-1.3, hi=4.6), d.f32(6, lo=-1.3, hi=5.6)]
    w = d.f32(6)
    ours = lambda x, i, j: fg.numpy.sum(ndimage.map_coordinates(x, [i, j], 1, mode) * w)  # noqa: E731
    theirs = lambda x, i, j: (jnd.map_coordinates(x, [i, j], 1, mode) * w).sum()  # noqa: E731
    got = fg.grad(ours, argnums=(0, 1, 2))(IMAGE, *coords)
    same(got, jax_call(jax.grad(theirs, argnums=(0, 1, 2)), IMAGE, *coords), f"grad map_coordinates {mode}", 2e-5, 2e-6,
         oracle="jax.grad")
    fg.check_grads(ours, (IMAGE, *coords))


def test_batched_over_vmap():
    images = d.f32(3, 4, 5)
    got = fg.vmap(lambda x: ndimage.map_coordinates(x, POINTS, 1, "nearest"))(images)
    want = jax_call(jax.vmap(lambda x: jnd.map_coordinates(x, POINTS, 1, "nearest")), images)
    same(got, want, "vmap map_coordinates", 1e-6, 1e-6, oracle="jax.scipy.ndimage")


@pytest.mark.parametrize("call, error, words", [
    (lambda: ndimage.map_coordinates(IMAGE, POINTS[:1], 1), fg.ShapeError, r"^map_coordinates: coordinates .* 1 for"),
    (lambda: ndimage.map_coordinates(IMAGE, POINTS, 3), fg.InputError, r"^map_coordinates: order 3"),
    (lambda: ndimage.map_coordinates(IMAGE, POINTS, 1, "grid-wrap"), fg.InputError, r"^map_coordinates: mode"),
    (lambda: fg.jit(lambda c: ndimage.map_coordinates(IMAGE, POINTS, 1, cval=c))(np.float32(1)), fg.TraceError,
     r"^map_coordinates: cval must be a static number"),
])
def test_refusals_name_the_function_and_the_user_s_line(call, error, words):
    with pytest.raises(error, match=words) as info:
        call()
    assert "test_scipy_ndimage.py:" in str(info.value)
