"""fg.image against jax.image: resize by every method, up and down, with and without antialiasing;
scale_and_translate with traced scales and translations; compiled; gradients; the refusals."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

IMAGE = np.random.default_rng(0).normal(size=(2, 7, 9, 3)).astype(np.float32)
METHODS = ["nearest", "linear", "cubic", "cubic-pytorch", "lanczos3", "lanczos5", "area"]
SHAPES = [(2, 14, 5, 3), (2, 3, 18, 3), (2, 1, 4, 3), (3, 7, 9, 2)]


@pytest.mark.parametrize("method, shape, antialias", list(itertools.product(METHODS, SHAPES, (True, False))))
def test_resize_is_jax_s(method, shape, antialias):
    want = jax.image.resize(IMAGE, shape, method, antialias=antialias)
    same(fg.image.resize(IMAGE, shape, method, antialias=antialias), want, f"{method} {shape}", 1e-4, 1e-5,
         oracle="jax.image")


@pytest.mark.parametrize("method", ["linear", "cubic", "cubic-pytorch", "lanczos3", "area"])
def test_scale_and_translate_with_traced_parameters_is_jax_s(method):
    scale, shift = np.float32([1.4, 0.7]), np.float32([0.3, -1.2])

    def warp(image, s, t, fn):
        return fn(image, (2, 10, 6, 3), (1, 2), s, t, method)

    want = warp(IMAGE, scale, shift, jax.image.scale_and_translate)
    same(fg.jit(lambda i, s, t: warp(i, s, t, fg.image.scale_and_translate))(IMAGE, scale, shift), want,
         f"{method} compiled", 1e-4, 1e-5, oracle="jax.image")
    def loss(fn, total):
        return lambda i, s: total(warp(i, s, shift, fn) ** 2)

    want = jax.grad(loss(jax.image.scale_and_translate, jnp.sum), argnums=(0, 1))(IMAGE, scale)
    same(fg.grad(loss(fg.image.scale_and_translate, fg.sum), argnums=(0, 1))(IMAGE, scale), want,
         f"{method} gradients", 1e-4, 1e-4, oracle="jax.grad")


def test_refusals():
    with pytest.raises(fg.InputError, match=r"^resize: unknown method 'bilateral'"):
        fg.image.resize(IMAGE, (2, 4, 4, 3), "bilateral")
    with pytest.raises(fg.ShapeError, match=r"^resize: shape \(4, 4\) must be one non-negative size per axis"):
        fg.image.resize(IMAGE, (4, 4), "linear")
    with pytest.raises(fg.InputError, match=r"^scale_and_translate: the 'nearest' method is not supported"):
        fg.image.scale_and_translate(IMAGE, IMAGE.shape, (1,), 1.0, 0.0, "nearest")
    with pytest.raises(fg.ShapeError, match=r"^scale_and_translate: scale \(1,\) and translation \(1,\) need one"):
        fg.image.scale_and_translate(IMAGE, (2, 5, 5, 3), (1, 2), 1.0, 0.0, "linear")
