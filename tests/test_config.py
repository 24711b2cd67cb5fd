"""`fg.config` and its context managers, as `jax.config`: each option's effect checked, the promotion
options against JAX's own (which calls raise, which pass and with what dtype), NaN and infinity checks
naming the op and the user's line eagerly, compiled and in loop bodies, and every misuse refused."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from fgrad.config import OPTIONS
from jax_oracle import Draws, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")
fnp = fg.numpy
HERE = os.path.basename(__file__)

D = Draws(5)
V3, M23 = D.f32(3), D.f32(2, 3)
I2, F2, H2, B2, U2 = (np.ones(2, dt) for dt in (np.int32, np.float32, np.float16, bool, np.uint32))


@pytest.fixture(autouse=True)
def defaults():
    """Each test starts and ends with every option at its default."""
    yield
    for name, option in OPTIONS.items():
        fg.config.update(name, option.default)


# -- the options themselves ------------------------------------------------------------------------


def test_update_read_and_values():
    assert fg.config.jax_debug_nans is False and fg.config.jax_numpy_rank_promotion == "allow"
    fg.config.update("jax_numpy_rank_promotion", "raise")
    assert fg.config.jax_numpy_rank_promotion == "raise"
    assert fg.config.values["jax_numpy_rank_promotion"] == "raise"
    assert set(fg.config.values) <= set(jax.config.values), "every option is one of JAX's, by name"


def test_context_managers_are_local_to_their_block_and_thread():
    seen = {}
    with fg.debug_nans(True), fg.numpy_rank_promotion("warn"):
        assert fg.config.jax_debug_nans is True and fg.config.jax_numpy_rank_promotion == "warn"
        thread = threading.Thread(target=lambda: seen.update(nans=fg.config.jax_debug_nans))
        thread.start()
        thread.join()
        fg.config.update("jax_numpy_rank_promotion", "raise")  # the block keeps its own value
        assert fg.config.jax_numpy_rank_promotion == "warn"
    assert seen == {"nans": False}
    assert fg.config.jax_debug_nans is False and fg.config.jax_numpy_rank_promotion == "raise"
    with fg.disable_jit():
        assert fg.config.jax_disable_jit is True
        assert isinstance(fg.jit(lambda x: x + 1)(V3), np.ndarray)  # the Python ran eagerly, on the host
    assert isinstance(fg.jit(lambda x: x + 1)(V3), fg.Array)
    fg.config.update("jax_disable_jit", True)
    assert isinstance(fg.jit(lambda x: x * 2)(V3), np.ndarray)


@pytest.mark.parametrize("name, value, message", [
    ("jax_foo", True, "no option 'jax_foo'"),
    (3, True, "option names are strings"),
    ("jax_debug_nans", "yes", "takes True or False"),
    ("jax_numpy_rank_promotion", "yes", "one of ['allow', 'warn', 'raise']"),
    ("jax_numpy_dtype_promotion", None, "one of ['standard', 'strict']"),
    ("jax_default_matmul_precision", "fast", "one of [None, 'default'"),
    ("jax_platforms", "cuda", "'cpu', 'gpu', 'webgpu'"),
    ("jax_platform_name", "cpu,gpu", "one of ['cpu'"),
    ("jax_compilation_cache_dir", 3, "a folder's path"),
    ("jax_enable_x64", True, "fgrad has no 64-bit types"),
])
def test_misuse_is_refused(name, value, message):
    with pytest.raises(fg.FgradError) as e:
        fg.config.update(name, value)
    assert message in str(e.value) and isinstance(e.value, ValueError)
    assert fg.config.jax_enable_x64 is False and fg.config.jax_debug_nans is False  # nothing was set


def test_misuse_of_reads_and_managers():
    with pytest.raises(AttributeError, match="no option 'jax_foo'"):
        fg.config.jax_foo
    with pytest.raises(AttributeError, match="fg.config.update"):
        fg.config.jax_debug_nans = True
    with pytest.raises(ValueError, match="give the value of jax_numpy_rank_promotion"):
        fg.numpy_rank_promotion()
    with pytest.raises(ValueError, match="64-bit"):
        with fg.enable_x64():
            pass
    with fg.enable_x64(False), fg.default_matmul_precision("highest"):
        assert fg.config.jax_default_matmul_precision == "highest"
        x = D.f32(4, 4)
        np.testing.assert_allclose(fg.jit(lambda a: a @ a)(x).numpy(), x @ x, rtol=1e-5, atol=1e-5)


# -- NaN and infinity checks -----------------------------------------------------------------------


def _log_twice(x):
    y = fnp.exp(x)
    return fnp.log(x) * 2 + y  # the NaN's line


LOG_LINE = f"{HERE}:{_log_twice.__code__.co_firstlineno + 2}"
NEGATIVE = np.array([-1.0, 1.0], np.float32)


@pytest.mark.parametrize("how", ["host", "jit", "array", "interpret"])
def test_debug_nans_names_the_op_and_line(how):
    run = {"host": lambda: _log_twice(NEGATIVE), "jit": lambda: fg.jit(_log_twice)(NEGATIVE),
           "array": lambda: fg.jit(_log_twice)(fg.device_put(NEGATIVE)),
           "interpret": lambda: fg.interpret(fg.trace(_log_twice, NEGATIVE), NEGATIVE)}[how]
    out = run()  # off: the NaN is a result
    assert np.isnan(np.asarray(out)[0])
    with fg.debug_nans(True):
        with pytest.raises(FloatingPointError, match=f"invalid value \\(nan\\) encountered in log at {LOG_LINE}"):
            run()
        ok = np.array([0.5, 1.0], np.float32)
        np.testing.assert_allclose(np.asarray(fg.jit(_log_twice)(ok)), np.log(ok) * 2 + np.exp(ok), rtol=1e-5)


def test_debug_nans_in_a_loop_body_and_a_donated_step():
    body_line = f"{HERE}:{sys._getframe().f_lineno + 3}"

    def loop(v):
        return fg.lax.scan(lambda c, a: (c + fnp.sqrt(a), c), 0.0, v)

    def step(p, v):
        return p - 0.1 * fnp.log(v), fnp.sum(p)
    step_line = f"{HERE}:{step.__code__.co_firstlineno + 1}"

    with fg.debug_nans(True):
        with pytest.raises(fg.InvalidValueError, match=f"encountered in sqrt at {body_line}"):
            fg.jit(loop)(NEGATIVE)
        params = fg.device_put(np.ones(2, np.float32))
        with pytest.raises(fg.InvalidValueError, match=f"encountered in log at {step_line}"):
            fg.jit(step, donate_argnums=0)(params, NEGATIVE)  # run again from the values before the call


def test_debug_infs_and_what_each_flag_leaves_alone():
    div_line = f"{HERE}:{sys._getframe().f_lineno + 1}"
    divide = fg.jit(lambda v: v / 0.0)
    with fg.debug_nans(True):
        assert np.isinf(np.asarray(divide(NEGATIVE))).all()  # infinities are not NaNs
        grads = fg.grad(lambda v: fnp.sum(fnp.sqrt(v)))(np.array([0.0, 1.0], np.float32))
        assert np.isinf(np.asarray(grads)[0])
    with fg.debug_infs(True):
        with pytest.raises(FloatingPointError, match=f"invalid value \\(inf\\) encountered in div at {div_line}"):
            divide(NEGATIVE)
        # a compiled call's results are checked, as jax.jit's: a masked -inf folded away is no error;
        # op by op (eagerly, as JAX's ops run), the masked values are an op's results
        masked = lambda v: fnp.max(fnp.where(v > 0, v, -fnp.inf))  # noqa: E731
        assert float(fg.jit(masked)(NEGATIVE)) == 1.0
        with pytest.raises(fg.InvalidValueError, match="invalid value \\(inf\\) encountered in broadcast_to"):
            fg.interpret(fg.trace(masked, NEGATIVE), NEGATIVE)
    assert float(fg.interpret(fg.trace(masked, NEGATIVE), NEGATIVE)) == 1.0


# -- promotion, against JAX ------------------------------------------------------------------------


STRICT = [  # (name, function of the module, its operands)
    ("add i32 f32", lambda m: m.add(m.asarray(I2), m.asarray(F2))),
    ("add f32 int", lambda m: m.add(m.asarray(F2), 1)),
    ("add f16 float", lambda m: m.add(m.asarray(H2), 1.5)),
    ("add u32 int", lambda m: m.add(m.asarray(U2), 1)),
    ("add i32 float", lambda m: m.add(m.asarray(I2), 1.5)),
    ("add bool int", lambda m: m.add(m.asarray(B2), 1)),
    ("and bool bool", lambda m: m.logical_and(m.asarray(B2), True)),
    ("add i32 bool", lambda m: m.add(m.asarray(I2), True)),
    ("add f16 f32", lambda m: m.add(m.asarray(H2), m.asarray(F2))),
    ("add u32 i32", lambda m: m.add(m.asarray(U2), m.asarray(I2))),
    ("add int float", lambda m: m.add(1, 2.0)),
    ("add f32 NumPy f64", lambda m: m.add(m.asarray(F2), np.ones(2))),
    ("add f32 NumPy i64", lambda m: m.add(m.asarray(F2), np.ones(2, np.int64))),
    ("concatenate", lambda m: m.concatenate([m.asarray(F2), m.asarray(I2)])),
    ("maximum", lambda m: m.maximum(m.asarray(I2), m.asarray(F2))),
    ("result_type", lambda m: m.result_type(m.int32, m.float32)),
    ("mean i32", lambda m: m.mean(m.asarray(I2))),
    ("var i32", lambda m: m.var(m.asarray(I2))),
    ("sqrt i32", lambda m: m.sqrt(m.asarray(I2))),
    ("divide i32 i32", lambda m: m.divide(m.asarray(I2), m.asarray(I2))),
    ("astype", lambda m: m.asarray(F2).astype(m.int32)),
]


def _outcome(fn):
    """('ok', dtype) or ('error', the builtin class it derives from)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn()  # an array, or eval_shape's description of one
            return "ok", np.dtype(out.dtype if hasattr(out, "dtype") else np.asarray(out).dtype).name
    except (TypeError, ValueError) as e:
        return "error", isinstance(e, ValueError)


def _outcome_as_jax(manager: str, value: str, name: str, fn):
    """fn's outcome (of the module given it) inside JAX's and fgrad's context manager `manager`(value):
    fgrad's, eagerly and traced, is JAX's; returned."""
    with getattr(jax, manager)(value):
        want = _outcome(lambda: fn(jnp))
    with getattr(fg, manager)(value):
        got = _outcome(lambda: fn(fnp))
        traced = _outcome(lambda: fg.eval_shape(lambda: fn(fnp)))  # traced: f16 needs no adapter feature
    assert got == want and traced == want, name
    return want


@pytest.mark.parametrize("name, fn", STRICT, ids=[row[0] for row in STRICT])
def test_strict_dtype_promotion_as_jax(name, fn):
    want = _outcome_as_jax("numpy_dtype_promotion", "strict", name, fn)
    if want[0] == "error":
        with fg.numpy_dtype_promotion("strict"), pytest.raises(fg.dtypes.TypePromotionError,
                                                              match=f"at {HERE}:"):
            fn(fnp)
    assert _outcome(lambda: fn(fnp))[0] == "ok"  # standard promotion, outside the block


RANKS = [
    ("add (3,) (2, 3)", lambda m: m.add(m.asarray(V3), m.asarray(M23))),
    ("add () (2, 3)", lambda m: m.add(m.float32(2), m.asarray(M23))),
    ("add int (2, 3)", lambda m: m.add(2, m.asarray(M23))),
    ("add (1, 3) (2, 3)", lambda m: m.add(m.asarray(V3)[None], m.asarray(M23))),
    ("multiply (3,) (2, 3)", lambda m: m.multiply(m.asarray(M23), m.asarray(V3))),
    ("power (3,) (2, 3)", lambda m: m.power(m.abs(m.asarray(M23)), m.asarray(V3))),
    ("arctan2 (3,) (2, 3)", lambda m: m.arctan2(m.asarray(M23), m.asarray(V3))),
    ("remainder (3,) (2, 3)", lambda m: m.remainder(m.asarray(M23), m.asarray(V3))),
    ("where (3,) (2, 3)", lambda m: m.where(m.asarray(V3) > 0, m.asarray(M23), 0.0)),
    ("matmul (3,) (2, 3, 4)", lambda m: m.matmul(m.asarray(V3), m.ones((2, 3, 4)))),
    ("broadcast_to", lambda m: m.broadcast_to(m.asarray(V3), (2, 3))),
    ("var axis", lambda m: m.var(m.asarray(M23), axis=1)),
    ("std axis 0", lambda m: m.std(m.asarray(M23), axis=0)),
    ("softmax", lambda m: m.exp(m.asarray(M23)) / m.sum(m.exp(m.asarray(M23)), axis=1, keepdims=True)),
]


@pytest.mark.parametrize("name, fn", RANKS, ids=[row[0] for row in RANKS])
def test_rank_promotion_as_jax(name, fn):
    want = _outcome_as_jax("numpy_rank_promotion", "raise", name, fn)
    if want[0] == "ok":
        with jax.numpy_rank_promotion("raise"), fg.numpy_rank_promotion("raise"):
            same(np.asarray(fn(fnp)), np.asarray(fn(jnp)), name, rtol=1e-5)
        return
    with fg.numpy_rank_promotion("raise"), pytest.raises(fg.ShapeError, match=f"jax_numpy_rank_promotion='raise'.* at {HERE}:"):
        fn(fnp)
    with fg.numpy_rank_promotion("warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(fnp)
    assert [os.path.basename(w.filename) for w in caught if "rank promotion" in str(w.message)] == [HERE]


def test_rank_promotion_leaves_fgrads_own_functions_alone():
    x = D.f32(2, 3)
    with fg.numpy_rank_promotion("raise"):
        got = fg.jit(lambda a: fg.nn.softmax(a) + fg.nn.standardize(a, axis=-1))(x)
    np.testing.assert_allclose(got.numpy(), jax.nn.softmax(x) + jax.nn.standardize(x, axis=-1), rtol=1e-5, atol=1e-5)


# -- scalar types, compiles, checks, the cache and the backend -------------------------------------


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype float64")
@pytest.mark.parametrize("name, value", [("float32", 1.5), ("int32", 2.7), ("float32", [1, 2]), ("bool_", 2),
                                         ("uint32", 7), ("float16", 0.1), ("float64", 1)])
def test_scalar_types_make_arrays_as_jax(name, value):
    same(getattr(fnp, name)(value), np.asarray(getattr(jnp, name)(value)), f"{name}({value})", rtol=1e-3)
    want = np.asarray(jax.jit(lambda v: getattr(jnp, name)(v))(np.float32(1.5)))
    assert fg.eval_shape(lambda v: getattr(fnp, name)(v), np.float32(1.5)).dtype == want.dtype
    if name != "float16":  # compiled where the adapter computes the dtype (f16 needs shader-f16)
        same(fg.jit(lambda v: getattr(fnp, name)(v))(np.float32(1.5)).numpy(), want, name)


def test_log_compiles(caplog):
    x = D.f32(3)
    with caplog.at_level(logging.WARNING, logger="fgrad"):
        fg.jit(lambda v: v * 3)(x)
    assert not caplog.records
    with fg.log_compiles(True), caplog.at_level(logging.WARNING, logger="fgrad"):
        fg.jit(lambda v: v * 4 + 1)(x)
    lines = [r.getMessage() for r in caplog.records]
    assert any(line.startswith("Finished tracing + transforming <lambda> in ") for line in lines), lines
    assert any(line.startswith("Compiled <lambda> for (f32[3]): 1 kernels in ") for line in lines), lines


def test_explain_cache_misses(caplog):
    @fg.jit
    def scaled(x, p):
        return x * p["w"]

    scaled(D.f32(3), {"w": np.float32(2)})
    with caplog.at_level(logging.WARNING, logger="fgrad"):
        scaled(D.f32(4), {"w": np.float32(2)})  # off: a miss is not explained
    assert not caplog.records
    line = sys._getframe().f_lineno + 3
    with fg.explain_cache_misses(), caplog.at_level(logging.WARNING, logger="fgrad"):
        scaled(D.f32(4), {"w": np.float32(2)})  # seen: no miss
        scaled(D.f32(4), {"w": np.int32(2)})
        fg.jit(lambda x, n: x * n, static_argnums=1)(V3, 2)  # a first trace: nothing to explain
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [f"TRACING CACHE MISS at {HERE}:{line} for scaled, traced 2 time(s) before, because its closest "
                     f"seen signature has 1 mismatch(es):\n  * at p.w, seen f32[], but now given i32[]"], lines


def test_enable_checks_type_checks_each_traced_graph(monkeypatch):
    import fgrad.runtime as runtime
    checked = []
    monkeypatch.setattr(runtime, "typecheck", lambda graph: checked.append(graph) or graph)
    fg.jit(lambda v: v - 3)(V3)
    assert checked == []
    with fg.enable_checks(True):
        fg.jit(lambda v: v - 4)(V3)
    assert len(checked) == 1 and isinstance(checked[0], fg.Graph)


def test_compilation_cache_dir(tmp_path):
    fg.config.update("jax_compilation_cache_dir", str(tmp_path))
    fg.jit(lambda v: fnp.tanh(v) * 5)(D.f32(7))
    assert list(tmp_path.iterdir()), "the compiled program was stored in the folder named"


def test_platforms_choose_the_default_device():
    """In a fresh process, 'cpu' opens a CPU adapter and 'gpu' a GPU or refuses by name; once a device
    is open, a choice that excludes it is an error."""
    code = ("import warnings, fgrad as fg; warnings.simplefilter('ignore'); fg.config.update('jax_platforms', '{0}')\n"
            "try:\n    print(fg.default_backend())\nexcept fg.CompileError as e:\n    print('refused', e)")
    run = lambda platform: subprocess.run([sys.executable, "-c", code.format(platform)], capture_output=True,  # noqa: E731
                                          text=True, timeout=120).stdout.strip()
    opened = fg.default_backend()  # a GPU where there is one, else the CPU adapter
    for platform, name in (("cpu", "cpu"), ("webgpu", "gpu"), ("gpu,cpu", opened)):
        got = run(platform)
        assert got == name or got.startswith(f"refused runtime: no WebGPU adapter of the backends "
                                             f"jax_platforms={platform.replace('webgpu', 'gpu')!r}"), (platform, got)
        assert got == name or name != opened, (platform, got)  # the default device's backend is there
    fg.config.update("jax_platforms", "cpu,gpu")
    fg.default_device()  # the open device is among them
    fg.config.update("jax_platform_name", None)
    fg.config.update("jax_platforms", "gpu" if opened == "cpu" else "cpu")
    with pytest.raises(fg.CompileError, match="excludes the default device"):
        fg.jit(lambda v: v + 9)(V3)
