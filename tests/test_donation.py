"""Every result of a compiled call has a buffer of its own: outputs that are one node, an input
returned as it is or a constant never share storage, with donation or without, and optimizer
steps with donated parameters and state match `interpret` step by step."""

from __future__ import annotations

import numpy as np
import pytest

import fgrad as fg
from fgrad.transforms import optim
from fgrad.lower import lower
from fgrad.pytree import flatten

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")


def fresh(a):
    """The value an Array's buffer holds now (numpy() keeps what it read first)."""
    return a.copy().numpy()


# ---------------------------------------------------------------------------
# Optimizer steps with donation
# ---------------------------------------------------------------------------

OPTIMIZERS = {
    "adam": (optim.adam_step, optim.adam_init, dict(lr=0.05)),
    "adamw": (optim.adam_step, optim.adam_init, dict(lr=0.05, weight_decay=0.1)),
    "adam_clipped": (optim.adam_step, optim.adam_init, dict(lr=0.05, clip_norm=0.05)),
    "sgd": (optim.sgd_step, optim.sgd_init, dict(lr=0.05)),
    "sgd_momentum": (optim.sgd_step, optim.sgd_init, dict(lr=0.05, momentum=0.9)),
    "sgd_nesterov": (optim.sgd_step, optim.sgd_init, dict(lr=0.05, momentum=0.9, nesterov=True)),
}

PARAMS = {
    "scalar": lambda: np.float32(0.5),  # one 0-d parameter: the spec of the loss and of each state leaf
    "scalar_dict": lambda: {"w": np.float32(0.5)},
    "vector": lambda: {"w": np.array([0.5, -0.25, 1.0], np.float32)},
    "mixed": lambda: {"s": np.float32(-0.75), "w": np.array([0.5, -0.25, 1.0], np.float32)},
}


def loss(params, x, y):
    return sum(fg.sum((p * x - y) ** 2) for p in flatten(params)[0])


@pytest.mark.parametrize("donate", [(0, 1), ()], ids=["donated", "kept"])
@pytest.mark.parametrize("shape", sorted(PARAMS))
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_step_on_device_matches_interpret_step_by_step(name, shape, donate):
    transform, init, kwargs = OPTIMIZERS[name]
    params = PARAMS[shape]()
    x, y = np.array([1.0, 2.0, -1.0], np.float32), np.array([0.5, 1.0, 0.25], np.float32)
    step = transform(fg.trace(loss, params, x, y), **kwargs)
    exe = fg.compile(step, donate_argnums=donate)
    want = (params, init(params))
    got = fg.device_put(want)
    first = got
    earlier = []  # every result of every step, with the value it must keep (without donation)
    for _ in range(4):
        *want, want_loss = fg.interpret(step, *want, x, y)
        new_p, new_s, got_loss = exe(*got, x, y)
        leaves = flatten((new_p, new_s, got_loss))[0]
        assert len({id(a.buffer) for a in leaves}) == len(leaves), "two results share a buffer"
        for g, w in zip(leaves, flatten((*want, want_loss))[0]):
            np.testing.assert_allclose(fresh(g), w, rtol=2e-5, atol=1e-6)
        if donate:
            assert all(a.donated for a in flatten(got)[0])
        else:
            earlier += list(zip(leaves, flatten((*want, want_loss))[0]))
        got = (new_p, new_s)
    for a, w in earlier:  # a later call wrote none of them
        np.testing.assert_allclose(fresh(a), w, rtol=2e-5, atol=1e-6)
    if not donate:
        for a, w in zip(flatten(first)[0], flatten((params, init(params)))[0]):
            np.testing.assert_array_equal(fresh(a), w)


def test_momentum_free_sgd_state_keeps_its_own_buffer_when_donated():
    """The state's momentum trace is its input returned as it is: the loss (of its spec) must
    not be planned into that buffer."""
    p = np.float32(0.5)
    step = optim.sgd_step(fg.trace(lambda w, x: fg.sum((w * x - 1.0) ** 2), p, np.ones(3, np.float32)))
    program = fg.compile(step, donate_argnums=(0, 1)).program
    assert len(set(program.outputs)) == len(program.outputs)


# ---------------------------------------------------------------------------
# Graphs returning one node twice, an input, a constant
# ---------------------------------------------------------------------------

X3 = np.array([1.0, -2.0, 3.0], np.float32)
GRAPHS = {
    "one_node_twice": (lambda a: (lambda e: (e, e, e * 1.0))(fg.exp(a)), X3),
    "equal_expressions": (lambda a: (a * 2.0, a * 2.0), X3),
    "input": (lambda a: (a, a + 1.0), X3),
    "input_twice": (lambda a: (a, a, a * 3.0), X3),
    "input_only": (lambda a: a, X3),
    "array_constant": (lambda a: (np.array([1.0, 2.0, 3.0], np.float32), a * 2.0), X3),
    "constant_and_input": (lambda a: (a, np.array([4.0, 5.0, 6.0], np.float32), a - 1.0), X3),
    "uniform_constant": (lambda a: (np.ones(3, np.float32), a), X3),
    "bool_constant": (lambda a: (np.array([True, False, True]), a > 1.0), X3),
    "scalar": (lambda a: (a, a * 2.0, a * 2.0, np.float32(7.0)), np.float32(1.5)),
    "integers": (lambda a: (a, a + 1, a + 1), np.array([3, -4], np.int32)),
}


@pytest.mark.parametrize("donate", [(0,), ()], ids=["donated", "kept"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_plan_gives_every_result_its_own_buffer(name, donate):
    fn, x = GRAPHS[name]
    program = lower(fg.trace(fn, x), donated=frozenset(donate))
    assert len(set(program.outputs)) == len(program.outputs)
    for b in program.outputs:
        buf = program.buffers[b]
        assert buf.kind == "output" or (buf.kind == "input" and buf.index in donate), buf


@pytest.mark.parametrize("donate", [(0,), ()], ids=["donated", "kept"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_results_stay_distinct_over_repeated_calls(name, donate):
    """Each result is written into by a donated call of its own; the others, and the next
    call's results (constants included), keep their values."""
    fn, x = GRAPHS[name]
    graph = fg.trace(fn, x)
    exe = fg.compile(graph, donate_argnums=donate)
    want = flatten(fg.interpret(graph, x))[0]
    clobber = {}  # spec -> a donated call that overwrites its argument's buffer in place
    arg = fg.device_put(x)
    for _ in range(3):
        outs = flatten(exe(arg))[0]
        assert len({id(a.buffer) for a in outs}) == len(outs)
        assert (arg.donated is not None) == bool(donate)
        values = [fresh(a) for a in outs]
        for v, w in zip(values, want):
            np.testing.assert_allclose(v, w, rtol=1e-6)
        for k, a in enumerate(outs):
            if a.spec not in clobber:
                clobber[a.spec] = fg.compile(fg.trace(lambda v: v == v if v.dtype is fg.DType.bool else v * 10,
                                                      a.spec), donate_argnums=0)
            clobber[a.spec](a)
            for j, b in enumerate(outs[k + 1:], k + 1):
                np.testing.assert_array_equal(fresh(b), values[j], err_msg=f"result {j} after overwriting {k}")
        arg = fg.device_put(x)


def test_returned_arrays_can_all_be_donated_together():
    """Results that are one value are still separate Arrays: donating them to one call is fine."""
    twice = fg.compile(fg.trace(lambda a: (lambda e: (e, e))(a + 1.0), X3))
    both = fg.compile(fg.trace(lambda u, v: u * v, X3, X3), donate_argnums=(0, 1))
    u, v = twice(X3)
    np.testing.assert_array_equal(both(u, v).numpy(), (X3 + 1) ** 2)
    passed = fg.compile(fg.trace(lambda a: (a, a), X3), donate_argnums=0)
    u, v = passed(fg.device_put(X3))
    np.testing.assert_array_equal(both(u, v).numpy(), X3 ** 2)


def test_an_input_returned_as_it_is_stays_the_callers():
    """Without donation a returned input is a copy: donating it later leaves the argument intact."""
    identity = fg.compile(fg.trace(lambda a: a, X3))
    consume = fg.compile(fg.trace(lambda a: a * 10.0, X3), donate_argnums=0)
    x = fg.device_put(X3)
    y = identity(x)
    consume(y)
    assert x.donated is None
    np.testing.assert_array_equal(fresh(x), X3)
    np.testing.assert_array_equal(identity(x).numpy(), X3)


def test_a_donated_input_returned_as_it_is_keeps_its_buffer():
    identity = fg.compile(fg.trace(lambda a: (a, a * 2.0), X3), donate_argnums=0)
    x = fg.device_put(X3)
    buffer = x.buffer
    y, z = identity(x)
    assert y.buffer is buffer and x.donated is not None
    np.testing.assert_array_equal(y.numpy(), X3)
    np.testing.assert_array_equal(z.numpy(), X3 * 2)


def test_bool_array_constants_are_stored_as_the_kernels_read_them():
    """A bool constant's buffer holds u32 0/1 per element, as every bool buffer does."""
    mask = np.array([True, False, True, True, False])
    graph = fg.trace(lambda x: (fg.where(mask, x, -x), mask), fg.spec(5))
    x = np.arange(1, 6, dtype=np.float32)
    got, want = fg.compile(graph)(x), fg.interpret(graph, x)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w)
