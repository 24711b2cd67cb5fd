"""fg.profile: a row per kernel, work counted, and the executable it timed left as it was; and the
dispatch encoding it shares with a call, through wgpu-native's C entry points or the public API."""

from __future__ import annotations

import numpy as np
import pytest

import fgrad as fg
from fgrad import runtime
from fgrad.profile import _timed_on_host

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

RNG = np.random.default_rng(3)
A = RNG.normal(size=(16, 32)).astype(np.float32)
B = RNG.normal(size=(32, 8)).astype(np.float32)


def mlp_loss(p, x):
    return fg.tanh(x @ p["w"]).sum()


def test_profile_has_a_row_per_kernel_in_dispatch_order():
    exe = fg.compile(fg.trace(lambda a, b: fg.tanh(a @ b).sum(), A, B))
    got = fg.profile(exe, A, B, repeat=2)
    assert [k.name for k in got.kernels] == [name for name, _ in exe.kernels]
    assert got.source in ("timestamps", "host timing")
    assert all(k.seconds >= 0 for k in got.kernels) and got.total > 0
    assert sum(k.share for k in got.kernels) == pytest.approx(1.0)
    assert sum(k.flops for k in got.kernels) == 2 * 16 * 32 * 8  # the matmul's, and nothing else's
    assert str(got).splitlines()[0].startswith(f"{len(exe.kernels)} kernels, ")


def test_host_timing_times_each_kernel_alone():
    exe = fg.compile(fg.trace(lambda a, b: fg.tanh(a @ b).sum(), A, B))
    buffers, _ = exe.bind((A, B))
    seconds = _timed_on_host(exe, buffers)
    assert len(seconds) == len(exe.kernels) and all(s > 0 for s in seconds)


def test_a_donated_step_profiled_between_calls_still_matches_interpret():
    # Profiling binds copies of the donated arguments; the next step must not run on them.
    p = {"w": RNG.normal(size=(8, 8)).astype(np.float32)}
    x = RNG.normal(size=(4, 8)).astype(np.float32)
    graph = fg.sgd_step(fg.trace(mlp_loss, p, x), lr=0.1)
    step = fg.compile(graph, donate_argnums=(0, 1))
    params, state = fg.device_put(p), fg.device_put(fg.sgd_init(p))
    want_params, want_state = p, fg.sgd_init(p)
    for k in range(3):
        params, state, loss = step(params, state, x)
        want_params, want_state, want_loss = fg.interpret(graph, want_params, want_state, x)
        np.testing.assert_allclose(float(loss), want_loss, rtol=1e-5, err_msg=f"step {k}")
        np.testing.assert_allclose(params["w"].numpy(), want_params["w"], rtol=1e-5, atol=1e-6, err_msg=f"step {k}")
        if k == 0:
            fg.profile(step, params, state, x)  # on copies: the next step takes params and state


def test_dispatches_encoded_through_the_public_api_give_the_same_results(monkeypatch):
    graph = fg.trace(lambda a, b: (fg.tanh(a @ b).sum(axis=0), a.max()), A, B)
    want = fg.interpret(graph, A, B)
    monkeypatch.setattr(runtime, "_native", None)  # as on a wgpu backend other than wgpu-native
    got = fg.compile(graph)(A, B)
    np.testing.assert_allclose(got[0].numpy(), want[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[1].numpy(), want[1])
