"""`fg.numpy.fft`'s real-valued helpers against jax.numpy.fft's, eagerly and compiled; the complex
transforms are errors that say why."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.25, 3])
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies_as_jax(name, n, d):
    ours, theirs = getattr(fg.numpy.fft, name), getattr(jnp.fft, name)
    same(np.asarray(ours(n, d)), np.asarray(theirs(n, d)), f"{name}({n}, {d})", oracle="jax.numpy.fft")
    same(fg.jit(lambda s: ours(n, s))(np.float32(d)).numpy(), np.asarray(theirs(n, np.float32(d))),
         f"{name}({n}, traced {d})", oracle="jax.numpy.fft")
    same(np.asarray(ours(n, d, dtype=fg.f16)), np.asarray(theirs(n, d, dtype=jnp.float16)), f"{name} f16",
         rtol=1e-3, oracle="jax.numpy.fft")


@pytest.mark.parametrize("axes", [None, 0, 1, -1, (0, 1), (1, 0)])
@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts_as_jax(name, axes):
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    ours, theirs = getattr(fg.numpy.fft, name), getattr(jnp.fft, name)
    want = np.asarray(theirs(x, axes))
    same(np.asarray(ours(x, axes)), want, name, oracle="jax.numpy.fft")
    same(fg.jit(lambda v: ours(v, axes))(x).numpy(), want, f"{name} compiled", oracle="jax.numpy.fft")


def test_complex_transforms_and_bad_lengths_are_named():
    x = np.ones(4, np.float32)
    for name in ("fft", "ifft", "rfft", "irfft", "fft2", "rfftn", "hfft"):
        with pytest.raises(fg.DTypeError, match=f"fft.{name}: gives complex values.*test_numpy_fft.py"):
            getattr(fg.numpy.fft, name)(x)
    with pytest.raises(fg.InputError, match="fftfreq: n must be a positive int"):
        fg.numpy.fft.fftfreq(0)
    with pytest.raises(fg.InputError, match="rfftfreq: n must be a positive int"):
        fg.numpy.fft.rfftfreq(2.5)
    with pytest.raises(fg.ShapeError, match=r"fftshift: axes must be axes of the value's shape \(4,\), got \(1,\)"):
        fg.numpy.fft.fftshift(x, 1)
    with pytest.raises(fg.ShapeError, match="ifftshift: axes must be axes"):
        fg.numpy.fft.ifftshift(x, "a")
