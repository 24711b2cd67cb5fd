"""fg.scipy.cluster.vq.vq against jax.scipy.cluster.vq: codes and distances for 2-d and 1-d
observations, ties, integer inputs, eagerly and compiled to WGSL, the distances' derivatives,
vmap, and the refusals."""

from __future__ import annotations

import jax
import jax.scipy.cluster.vq as jvq
import numpy as np
import pytest

import fgrad as fg
import fgrad.scipy.cluster.vq as vq
from jax_oracle import Draws, jax_call, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

d = Draws(61)
OBS, CODES = d.f32(7, 3), d.f32(4, 3)
TIED = np.float32([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [3.0, 0.0]])  # rows 0 and 2 equally near every point
CASES = [(OBS, CODES), (OBS[:, 0], CODES[:, 0]), (d.f32(5, 2), TIED), (d.i32(6, 2), d.i32(3, 2))]


def test_values_match_jax_scipy_cluster():
    """The nearest code (the first of equally near ones) and the distance to it."""
    for k, (obs, codes) in enumerate(CASES):
        same(vq.vq(obs, codes), jax_call(jvq.vq, obs, codes, jit=True), f"vq case {k}", 2e-6, 1e-6,
             oracle="jax.scipy.cluster")
    assert vq.vq(OBS, CODES, check_finite=False)[0].dtype == np.int32


def test_compiled_values_gradients_and_vmap():
    same(fg.jit(vq.vq)(OBS, CODES), jax_call(jvq.vq, OBS, CODES), "vq compiled", 1e-5, 1e-6,
         oracle="jax.scipy.cluster")
    ours = lambda o, c: fg.numpy.sum(vq.vq(o, c)[1])  # noqa: E731
    got = fg.grad(ours, argnums=(0, 1))(OBS, CODES)
    want = jax_call(jax.grad(lambda o, c: jvq.vq(o, c)[1].sum(), argnums=(0, 1)), OBS, CODES)
    same(got, want, "grad vq", 2e-5, 1e-6, oracle="jax.grad")
    fg.check_grads(ours, (OBS, CODES))
    batches = d.f32(2, 7, 3)
    same(fg.vmap(lambda o: vq.vq(o, CODES))(batches), jax_call(jax.vmap(lambda o: jvq.vq(o, CODES)), batches),
         "vmap vq", 2e-6, 1e-6, oracle="jax.scipy.cluster")


@pytest.mark.parametrize("call, words", [
    (lambda: vq.vq(OBS, CODES[:, 0]), r"^vq: obs \(7, 3\) and code_book \(4,\) must have the same rank"),
    (lambda: vq.vq(d.f32(2, 3, 3), d.f32(2, 3, 3)), r"^vq: .* must be 1-d or 2-d"),
    (lambda: vq.vq(OBS, CODES[:, :2]), r"^vq: .* same number of features"),
])
def test_refusals_name_the_function_and_the_user_s_line(call, words):
    with pytest.raises(fg.ShapeError, match=words) as info:
        call()
    assert "test_scipy_cluster.py:" in str(info.value)
