"""How calls reach the device: light calls share a submit, results reuse the buffers of
dropped ones, and neither changes a value."""

from __future__ import annotations

import gc

import numpy as np

import fgrad as fg
from fgrad import runtime


def _double():
    return fg.compile(fg.trace(lambda x: x * 2.0 + 1.0, fg.spec((8, 8))))


def test_light_calls_wait_for_a_read_and_all_arrive(monkeypatch):
    monkeypatch.setattr(runtime, "LATENCY", 60.0)  # however slow the machine, no call comes after a pause
    exe = _double()
    device = exe.device
    x = fg.device_put(np.arange(64, dtype=np.float32).reshape(8, 8))
    exe(x)
    device.flush()
    outs = [x]
    for _ in range(5):  # each call reads the last one's result
        outs.append(exe(outs[-1]))
    assert not exe.heavy and device.pending == 5  # recorded, not yet submitted
    want = np.arange(64, dtype=np.float32).reshape(8, 8)
    for k, out in enumerate(outs[1:]):
        want = want * 2 + 1
        np.testing.assert_array_equal(out.numpy(), want)
    assert device.pending == 0


def test_a_host_argument_written_after_pending_calls_does_not_reach_them():
    exe = _double()
    a, b = np.full((8, 8), 1.0, np.float32), np.full((8, 8), 5.0, np.float32)
    first = exe(a)  # uploaded into the executable's buffer, dispatch left pending
    second = exe(b)  # the same upload buffer: the first call must have been submitted before
    np.testing.assert_array_equal(first.numpy(), a * 2 + 1)
    np.testing.assert_array_equal(second.numpy(), b * 2 + 1)


def test_a_dropped_result_buffer_serves_the_next_result():
    exe = _double()
    x = fg.device_put(np.ones((8, 8), np.float32))
    out = exe(x)
    buffer = out.buffer
    del out
    again = exe(x)
    assert again.buffer is buffer
    np.testing.assert_array_equal(again.numpy(), np.full((8, 8), 3.0, np.float32))


def test_a_buffer_read_by_pending_work_is_reused_only_after_it():
    exe = _double()
    x = fg.device_put(np.full((8, 8), 2.0, np.float32))
    mid = exe(x)  # 5
    last = exe(mid)  # reads mid's buffer, pending
    buffer = mid.buffer
    del mid  # its buffer goes back to the pool while the read is still pending
    other = exe(x)  # takes that buffer and writes 5 again after the pending read
    assert other.buffer is buffer
    np.testing.assert_array_equal(last.numpy(), np.full((8, 8), 11.0, np.float32))
    np.testing.assert_array_equal(other.numpy(), np.full((8, 8), 5.0, np.float32))


def test_arrays_in_a_reference_cycle_give_back_live_buffers():
    exe = _double()
    x = fg.device_put(np.ones((8, 8), np.float32))
    for _ in range(3):
        cycle: list = [exe(x)]
        cycle.append(cycle)  # only the garbage collector frees it
        del cycle
        gc.collect()
    outs = [exe(x) for _ in range(4)]  # buffers from the pool, all still valid
    for out in outs:
        np.testing.assert_array_equal(out.numpy(), np.full((8, 8), 3.0, np.float32))


def test_a_heavy_call_is_submitted_at_its_end():
    n = 512
    exe = fg.compile(fg.trace(lambda a, b: a @ b, fg.spec((n, n)), fg.spec((n, n))))
    assert exe.heavy
    a = fg.device_put(np.eye(n, dtype=np.float32))
    exe(a, a)
    assert exe.device.pending == 0


def _training_step():
    from fgrad import nn
    rng = np.random.default_rng(0)
    params = nn.init_mlp(rng, [256, 512, 10])  # 2^27 FLOPs a step: a heavy call
    x = rng.standard_normal((256, 256)).astype(np.float32)
    y = rng.integers(0, 10, 256).astype(np.int32)
    graph = fg.adam_step(fg.trace(lambda p, a, b: nn.cross_entropy(nn.mlp(p, a), b), params, x, y), lr=1e-2)
    step = fg.compile(graph, donate_argnums=(0, 1))
    return step, params, fg.adam_init(params), fg.device_put((x, y))


def test_a_loss_read_every_step_is_staged_as_soon_as_it_is_computed():
    step, params, state, data = _training_step()
    assert step.heavy and step.producers  # the loss is small and written by a kernel mid-step
    losses, staged = [], []
    for _ in range(4):
        params, state, loss = step(params, state, *data)
        staged.append(loss.early is not None)
        losses.append(float(loss))
    assert staged == [False, True, True, True]  # once the first loss was read, every next one is staged
    step2, params2, state2, data2 = _training_step()
    kept = []
    for _ in range(4):  # the same steps, read only at the end: nothing staged
        params2, state2, loss2 = step2(params2, state2, *data2)
        assert loss2.early is None
        kept.append(loss2)
    assert losses == [float(v) for v in kept]
    assert losses[-1] < losses[0]


def test_light_calls_of_one_symbolic_program_keep_their_own_sizes(monkeypatch):
    monkeypatch.setattr(runtime, "LATENCY", 60.0)  # both calls wait in one submit
    T = fg.dim("T", max=16)
    exe = fg.compile(fg.trace(lambda x: x.sum(axis=0) * 2.0, fg.spec((T, 4))))
    exe(np.ones((1, 4), np.float32)).numpy()  # a read: the next calls come after a submit
    short = exe(np.ones((2, 4), np.float32))  # the sizes buffer holds T = 2 for this one
    long = exe(np.ones((5, 4), np.float32))  # and T = 5 for this one: written after the first is submitted
    np.testing.assert_array_equal(short.numpy(), np.full(4, 4.0, np.float32))
    np.testing.assert_array_equal(long.numpy(), np.full(4, 10.0, np.float32))
