"""`fg.experimental.ode.odeint` against `jax.experimental.ode.odeint`: the same Dormand-Prince steps,
so values and adjoint gradients agree to rounding; eager, compiled (the adaptive loop on the
device), batched, over pytrees and closures."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental.ode import odeint as jax_odeint

import fgrad as fg
from fgrad.experimental.ode import odeint

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

T = np.linspace(0.0, 2.0, 5).astype(np.float32)
Y0 = np.float32([1.0, 2.0])
K = np.float32(0.7)


def decay(y, t, k):
    return -k * y + 0.1 * t


def oscillator(state, t, w):
    x, v = state
    return v, -w * w * x


def close(got, want, rtol=2e-5, atol=2e-6):
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def test_values_as_jax():
    close(odeint(decay, Y0, T, K), jax_odeint(decay, Y0, T, K))
    start = (np.float32(1.0), np.float32(0.0))
    close(odeint(oscillator, start, T, np.float32(2.0)), jax_odeint(oscillator, start, T, np.float32(2.0)))
    close(odeint(decay, Y0, T, K, rtol=1e-4, atol=1e-4, hmax=0.1), jax_odeint(decay, Y0, T, K, rtol=1e-4, atol=1e-4,
                                                                             hmax=0.1))
    # Stopped after 4 steps a time, as JAX's: the last step's polynomial extrapolated to each time,
    # which amplifies rounding (after fewer steps, further).
    close(odeint(decay, Y0, T, K, mxstep=4), jax_odeint(decay, Y0, T, K, mxstep=4), rtol=1e-4, atol=1e-5)


def test_gradients_by_the_adjoint_as_jax():
    def loss(lib, solve):
        return lambda y0, k, t: lib.sum(solve(decay, y0, t, k) ** 2)

    got = fg.grad(loss(fg, odeint), argnums=(0, 1, 2))(Y0, K, T)
    want = jax.grad(loss(jnp, jax_odeint), argnums=(0, 1, 2))(Y0, K, T)
    close(got, want, rtol=1e-4, atol=1e-5)


def test_closures_are_differentiated_too():
    w = np.float32(3.0)
    close(odeint(lambda y, t: -w * y, Y0, T), jax_odeint(lambda y, t: -w * y, Y0, T))
    got = fg.grad(lambda w: fg.sum(odeint(lambda y, t: -w * y, Y0, T)))(w)
    want = jax.grad(lambda w: jnp.sum(jax_odeint(lambda y, t: -w * y, Y0, T)))(w)
    close(got, want, rtol=1e-4)


def test_compiled_and_batched_as_jax():
    t = T[:3] / 2
    loose = dict(rtol=1e-5, atol=1e-5)
    close(fg.jit(lambda y0, k: odeint(decay, y0, t, k, **loose))(Y0, K).numpy(), jax_odeint(decay, Y0, t, K, **loose),
          rtol=1e-4, atol=1e-5)
    ks = np.float32([0.5, 1.0, 2.0])
    close(fg.vmap(lambda k: odeint(decay, Y0, t, k, **loose))(ks),
          jax.vmap(lambda k: jax_odeint(decay, Y0, t, k, **loose))(ks), rtol=1e-4, atol=1e-5)
    got = fg.jit(fg.grad(lambda k: fg.sum(odeint(decay, Y0, t, k, **loose))))(K)
    close(got.numpy(), jax.grad(lambda k: jnp.sum(jax_odeint(decay, Y0, t, k, **loose)))(K), rtol=1e-4)


def test_misuse_is_named():
    with pytest.raises(fg.DTypeError, match="odeint: t must be a vector of floats"):
        odeint(decay, Y0, np.arange(3), K)
    with pytest.raises(fg.InputError, match="odeint: the args must be arrays or numbers"):
        odeint(decay, Y0, T, "k")
    with pytest.raises(fg.InputError, match="odeint: func must be a function"):
        odeint(3, Y0, T)
    with pytest.raises(fg.ShapeError, match=r"odeint: func must return y's structure and shapes \(2 values\), "
                                            "returned 1"):
        odeint(lambda y, t: y[:1], Y0, T)
