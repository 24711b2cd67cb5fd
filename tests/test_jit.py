"""fg.jit as jax.jit: static arguments, keyword arguments, donation by position or name, and its errors.

Every compiled result is compared with `fg.interpret` of the same function.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import fgrad as fg

RNG = np.random.default_rng(7)


def normal(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape).astype(np.float32)


@dataclasses.dataclass(frozen=True)
class Config:
    activation: str = "tanh"
    scale: float = 2.0


def layer(x, config, *, bias=0.0):
    y = x * config.scale + bias
    return fg.tanh(y) if config.activation == "tanh" else fg.relu(y)


def expected(x, config, bias=np.float32(0.0)):
    return fg.interpret(fg.trace(lambda x, b: layer(x, config, bias=b), x, bias), x, bias)


def _line(fn, offset):
    return f"test_jit.py:{fn.__code__.co_firstlineno + offset}"


def counting(fn):
    """`fn`, and the list of configs it was traced with."""
    traced = []

    def wrapper(x, config, *, bias=0.0):
        traced.append(config)
        return fn(x, config, bias=bias)

    return wrapper, traced


def test_static_argnums_compile_once_per_static_value():
    fn, traced = counting(layer)
    jf = fg.jit(fn, static_argnums=1)
    x = normal(4)
    relu = Config("relu", 3.0)
    for config in (Config(), relu, Config(), Config("tanh", 2.0), relu):
        np.testing.assert_allclose(jf(x, config).numpy(), expected(x, config), rtol=1e-5, atol=1e-6)
    assert traced == [Config(), relu]  # equal static values share one compiled program
    jf(normal(2, 3), relu)  # a new shape compiles again
    assert len(traced) == 3


def test_static_argnames_and_argnums_are_mapped_through_the_signature():
    x = normal(4)
    relu = Config("relu", 0.5)
    by_number, by_name = fg.jit(layer, static_argnums=1), fg.jit(layer, static_argnames="config")
    for jf in (by_number, by_name):
        np.testing.assert_allclose(jf(x, relu).numpy(), expected(x, relu), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(jf(x, config=relu).numpy(), expected(x, relu), rtol=1e-5, atol=1e-6)
    last = fg.jit(lambda x, n: fg.reshape(x, (n, -1)), static_argnums=-1)  # counted from the last argument
    np.testing.assert_allclose(last(normal(6), 2).numpy().shape, (2, 3))


def test_keyword_arguments_are_traced_like_positional_ones():
    fn, traced = counting(layer)
    jf = fg.jit(fn, static_argnames="config")
    x, b = normal(4), normal(4)
    np.testing.assert_allclose(jf(x, Config(), bias=b).numpy(), expected(x, Config(), b), rtol=1e-5, atol=1e-6)
    b2 = normal(4)
    np.testing.assert_allclose(jf(x, bias=b2, config=Config()).numpy(), expected(x, Config(), b2), rtol=1e-5, atol=1e-6)
    assert len(traced) == 2  # the config by position, then by keyword; a new bias value reuses the program
    two = fg.jit(lambda a, b: a - 2.0 * b)
    np.testing.assert_allclose(two(b=x, a=b).numpy(), b - 2.0 * x, rtol=1e-5, atol=1e-6)


def test_keyword_arguments_inside_another_trace():
    jf = fg.jit(layer, static_argnames="config")
    x, b = normal(3), normal(3)
    got = fg.grad(lambda b: fg.sum(jf(x, config=Config(), bias=b)))(b)
    np.testing.assert_allclose(got, 1 - np.tanh(2 * x + b) ** 2, rtol=1e-5, atol=1e-6)


def test_donation_by_position_and_by_name_with_keywords():
    def step(params, state, *, lr):
        return params - lr * state, state + 1.0

    p0, s0 = normal(3), normal(3)
    for jf in (fg.jit(step, donate_argnums=(0, 1)), fg.jit(step, donate_argnames=("params", "state"))):
        params, state = fg.device_put(p0), fg.device_put(s0)
        new_params, new_state = jf(state=state, params=params, lr=np.float32(0.5))
        np.testing.assert_allclose(new_params.numpy(), p0 - 0.5 * s0, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(new_state.numpy(), s0 + 1.0, rtol=1e-5, atol=1e-6)
        for used in (params, state):
            with pytest.raises(fg.InputError, match="was donated"):
                used.numpy()


@pytest.mark.parametrize("static, kwargs, message", [
    ({}, {}, r"argument config\.activation is a str, not an array; a Python value such as a config or a flag "
             r"must be static: fg\.jit\(layer, static_argnums=1\)"),
    ({}, {"config": Config()}, r"argument config\.activation is a str.*static_argnames='config'"),
    ({"static_argnums": 1}, {"bias": "zero"}, r"argument bias is a str.*static_argnames='bias'"),
])
def test_non_array_arguments_must_be_static(static, kwargs, message):
    jf, x = fg.jit(layer, **static), normal(3)
    args = (x,) if "config" in kwargs else (x, Config())

    def run():
        return jf(*args, **kwargs)

    with pytest.raises(fg.InputError, match=r"^jit: " + message) as e:
        run()
    assert _line(run, 1) in str(e.value)


def test_static_arguments_must_be_hashable():
    jf = fg.jit(lambda x, sizes: fg.reshape(x, sizes["shape"]), static_argnums=1)

    def run():
        return jf(normal(6), {"shape": (2, 3)})

    with pytest.raises(fg.InputError, match=r"jit: static argument sizes is a dict, which is not hashable") as e:
        run()
    assert _line(run, 1) in str(e.value)


@pytest.mark.parametrize("options, message", [
    ({"static_argnums": 2}, r"static_argnums=2 is out of range for layer\(x, config, \*, bias=0\.0\)"),
    ({"static_argnames": "cfg"}, r"static_argnames='cfg' names no keyword parameter of layer"),
    ({"donate_argnames": ("x", "y")}, r"donate_argnames=\('x', 'y'\) names no keyword parameter"),
    ({"static_argnums": "1"}, r"static_argnums must be ints"),
    ({"static_argnums": 1, "donate_argnames": "config"}, r"arguments \[1, 'config'\] are both static and donated"),
])
def test_bad_argnums_and_argnames(options, message):
    def make():
        return fg.jit(layer, **options)

    with pytest.raises(fg.InputError, match=r"^jit: " + message) as e:
        make()
    assert _line(make, 1) in str(e.value)


def test_lower_shows_the_graph_and_kernels_and_compiles():
    f = fg.jit(lambda x, n: fg.sum(x ** n), static_argnums=1)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    lowered = f.lower(x, 3)
    assert lowered.as_text() == str(fg.trace(lambda x: fg.sum(x ** 3), x))
    assert [k.name for k in lowered.kernels] == ["integer_pow_sum"] and "fn main" in lowered.kernels[0].wgsl
    exe = lowered.compile()
    assert isinstance(exe, fg.Executable) and exe.peak_bytes > 0
    assert float(exe(x)) == float(f(x, 3)) == 36.0


def test_disable_jit_runs_the_python_eagerly():
    """As jax.disable_jit: inside the block a jitted function's body runs as Python on its
    arguments (NumPy arrays stay NumPy: print and pdb work there); outside, it compiles."""
    kinds = []

    @fg.jit
    def f(x):
        kinds.append(type(x))
        return fg.exp(x) * 2.0

    x = np.float32([0.0, 1.0])
    with fg.disable_jit():
        np.testing.assert_allclose(f(x), np.exp(x) * 2, rtol=1e-6)
        with fg.disable_jit(False):
            f(x)
    np.testing.assert_allclose(f(x).numpy(), np.exp(x) * 2, rtol=1e-6)
    assert kinds == [np.ndarray, fg.Tensor]  # the inner block compiled, and the compiled call is cached


def test_clear_caches_traces_again_and_old_results_stay_valid():
    traced = []

    @fg.jit
    def f(x):
        traced.append(1)
        return x * 2

    x = np.float32([1, 2])
    before = f(x)
    f(x)
    assert len(traced) == 1
    fg.clear_caches()
    np.testing.assert_array_equal(np.asarray(f(x)), [2, 4])
    assert len(traced) == 2
    np.testing.assert_array_equal(np.asarray(before), [2, 4])
