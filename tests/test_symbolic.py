"""Symbolic dimensions: one trace and one compiled program serve every value of a symbol (fg.dim)
from 1 to its maximum, each call equal to `interpret` at the call's shapes."""

from __future__ import annotations

import numpy as np
import pytest

import fgrad as fg
from fgrad.lower import lower
from fgrad.testing import check_grads

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

T = fg.dim("T", 128)
RNG = np.random.default_rng(0)
W = RNG.normal(size=(64, 32)).astype(np.float32) / 8
V = RNG.normal(size=(32,)).astype(np.float32)


def block(x):
    """A matmul, a softmax along the last axis, a reduction over T, elementwise work."""
    p = fg.softmax(x @ W + V, axis=-1)
    pooled = fg.mean(fg.tanh(p * 4.0), axis=0)  # (32,): over T
    return p - pooled, fg.max(x, axis=0), fg.sum(x * x)


def _rows(t, width=64, seed=None):
    return np.random.default_rng(t if seed is None else seed).normal(size=(t, width)).astype(np.float32)


def _assert_equal(got, want, rtol=1e-5, atol=1e-6):
    for g, w in zip(_leaves(got), _leaves(want), strict=True):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _leaves(tree):
    from fgrad.pytree import flatten

    return flatten(tree)[0]


def test_compiled_once_runs_every_size_up_to_max(monkeypatch):
    """The issue's check: a function over (T, 64) compiled once runs at T = 1, 7, 64 and the
    maximum, each equal to interpret, with no new compile and no new buffer between calls."""
    import fgrad.runtime

    monkeypatch.setenv("FGRAD_CACHE_DIR", "")  # every compile lowers: the count is of lowerings
    lowered = []
    monkeypatch.setattr(fgrad.runtime, "lower", lambda *a, **k: lowered.append(1) or lower(*a, **k))
    graph = fg.trace(block, fg.spec((T, 64)))
    assert str(graph.in_specs[0]) == "f32[T,64]" and graph.symbols == (T,)
    exe = fg.compile(graph)
    pipelines = list(exe.pipelines)
    cached = len(exe.device.pipelines)
    seen = None
    for t in (1, 7, 64, T.max, 3):
        x = _rows(t)
        out = exe(x)
        want = fg.interpret(graph, x)
        assert out[0].shape == (t, 32) and want[0].shape == (t, 32)
        _assert_equal(out, want, rtol=1e-4, atol=1e-5)
        buffers = (dict(exe.resident), dict(exe.uploads), exe.sizes)
        if seen is None:
            seen = buffers
        assert buffers[0] == seen[0] and buffers[1] == seen[1] and buffers[2] is seen[2]
    assert len(lowered) == 1 and exe.pipelines == pipelines and len(exe.device.pipelines) == cached


def test_grids_follow_the_symbol_and_buffers_are_planned_at_the_maximum():
    program = lower(fg.trace(block, fg.spec((T, 64))))
    assert program.symbols == (T,)
    x = program.buffers[program.inputs[0]]
    assert x.size == T.max * 64 * 4
    sized = [k for k in program.kernels if k.groups]
    assert sized and all(k.sized for k in sized)
    for k in sized:
        at_one, at_max = k.grid_at({"T": 1}), k.grid_at({"T": T.max})
        assert at_max == k.grid and all(a <= b for a, b in zip(at_one, at_max))
    assert any(k.grid_at({"T": 1}) < k.grid for k in sized)  # a decode step (T = 1) runs fewer workgroups


def test_a_long_product_of_symbolic_rows_is_split_along_k_and_matches_at_every_size():
    """(1, T, 512) @ (512, 16) has too few tiles for the adapter: k splits into a batch of partial
    products summed after, the rows keeping their symbolic axis."""
    w = RNG.normal(size=(512, 16)).astype(np.float32) / 16
    graph = fg.trace(lambda x: fg.tanh(x @ w), fg.spec((1, T, 512)))
    program = lower(graph)
    assert any(program.graph.nodes[i].op == "sum" for k in program.kernels for i in k.nodes)  # of the partials
    assert program.symbols == (T,)
    exe = fg.compile(graph)
    for t in (1, 7, T.max):
        x = _rows(t, 512)[None]
        _assert_equal(exe(x), fg.interpret(graph, x), rtol=1e-4, atol=1e-5)  # sums of 512 in another order


def test_a_symbolic_product_is_not_split_where_its_partial_products_would_be_too_big():
    """Split-k of (1, L, 512) @ (512, 256) at L's maximum of 2**16 would make 2 x 64 MiB of partial products."""
    long = fg.dim("L", 1 << 16)
    program = lower(fg.trace(lambda x, w: x @ w, fg.spec((1, long, 512)), fg.spec((512, 256))))
    assert [k.name for k in program.kernels] == ["matmul"]


def test_arguments_may_be_device_arrays_of_any_size():
    graph = fg.trace(lambda x, y: (x * 2.0 + y, fg.sum(x, axis=0)), fg.spec((T, 3)), fg.spec((T, 3)))
    exe = fg.compile(graph)
    for t in (2, 9):
        x, y = _rows(t, 3), _rows(t, 3, seed=t + 1)
        got = exe(fg.device_put(x), y)
        _assert_equal(got, fg.interpret(graph, x, y))
        again = exe(got[0], got[0])  # a result (of the call's shape) fed back in
        _assert_equal(again, fg.interpret(graph, np.asarray(got[0]), np.asarray(got[0])))


def test_two_symbols_and_a_symbol_returned_as_an_argument():
    B = fg.dim("B", 4)

    def f(x, y):
        return x, fg.reshape(x, (B, T, 2, 2)) + y[:, :, None, None], fg.multiply(x.shape[1], 1.0)

    graph = fg.trace(f, fg.spec((B, T, 4)), fg.spec((B, T)))
    assert graph.symbols == (B, T)
    exe = fg.compile(graph)
    for b, t in ((1, 1), (3, 5), (4, 128)):
        x, y = RNG.normal(size=(b, t, 4)).astype(np.float32), RNG.normal(size=(b, t)).astype(np.float32)
        got = exe(x, y)
        _assert_equal(got, fg.interpret(graph, x, y))
        assert float(got[2]) == t


def test_llm_prefill_shapes_compile_once():
    """What a prefill step needs over T tokens: embeddings gathered by token id, a layer norm over
    features, causal attention of T queries over a KV cache of fixed length at a traced offset,
    matmuls with T rows, a loss averaged over T."""
    L, D, vocab = 16, 8, 11
    S = fg.dim("S", L)
    params = {"emb": RNG.normal(size=(vocab, D)).astype(np.float32), "wq": RNG.normal(size=(D, D)).astype(np.float32),
              "out": RNG.normal(size=(D, vocab)).astype(np.float32)}
    cache = RNG.normal(size=(L, D)).astype(np.float32)

    def prefill(p, tokens, targets, cache, start):
        x = p["emb"][tokens]  # (S, D)
        x = (x - fg.mean(x, -1, keepdims=True)) * fg.rsqrt(fg.mean(x * x, -1, keepdims=True) + 1e-5)
        q = x @ p["wq"]
        positions = start + fg.arange(tokens.shape[0])  # (S,)
        visible = fg.arange(L)[None, :] <= positions[:, None]  # (S, L)
        scores = fg.where(visible, q @ cache.T / np.sqrt(D), -1e9)
        h = fg.softmax(scores, axis=-1) @ cache + x
        logits = h @ p["out"]
        loss = -fg.mean(fg.sum(fg.log_softmax(logits) * fg.one_hot(targets, vocab), axis=-1))
        return logits[-1], loss

    specs = ({k: fg.spec(v.shape) for k, v in params.items()}, fg.spec(S, "i32"), fg.spec(S, "i32"),
             fg.spec((L, D)), fg.spec((), "i32"))
    graph = fg.trace(prefill, *specs)
    exe = fg.compile(graph)
    for t, start in ((1, 9), (5, 0), (16, 0)):
        tokens = RNG.integers(0, vocab, t).astype(np.int32)
        targets = RNG.integers(0, vocab, t).astype(np.int32)
        args = (params, tokens, targets, cache, np.int32(start))
        got, want = exe(*args), fg.interpret(graph, *args)
        _assert_equal(got, want, rtol=1e-4, atol=1e-4)
        concrete = fg.trace(prefill, params, tokens, targets, cache, np.int32(start))
        _assert_equal(want, fg.interpret(concrete, *args), rtol=1e-6, atol=1e-6)
    step = fg.adam_step(fg.trace(lambda p, tok, tgt, c, s: prefill(p, tok, tgt, c, s)[1], *specs))
    compiled = fg.compile(step)
    for t in (1, 6):
        args = (params, fg.adam_init(params), RNG.integers(0, vocab, t).astype(np.int32),
                RNG.integers(0, vocab, t).astype(np.int32), cache, np.int32(2))
        _assert_equal(compiled(*args), fg.interpret(step, *args), rtol=1e-4, atol=1e-5)


def loss(w, x):
    h = fg.tanh(x @ w)  # (T, 3)
    return fg.mean(fg.logsumexp(h, axis=-1)) + fg.mean(fg.softmax(h, axis=0)[:, 1] * h[:, 0])


def test_grad_of_a_symbolic_graph_matches_finite_differences():
    w = RNG.normal(size=(4, 3)).astype(np.float32)
    graph = fg.trace(loss, fg.spec((4, 3)), fg.spec((T, 4)))
    grad = fg.typecheck(fg.grad(graph, argnums=(0, 1)))
    assert grad.symbols == (T,)
    exe = fg.compile(grad)
    for t in (1, 6):
        x = _rows(t, 4)
        got = fg.interpret(grad, w, x)
        assert got[1].shape == (t, 4)
        check_grads(loss, (w, x))  # the VJP rules at this size, in float64
        _assert_equal(got, fg.grad(loss, argnums=(0, 1))(w, x), rtol=1e-6, atol=1e-7)
        _assert_equal(exe(w, x), got, rtol=1e-4, atol=1e-6)
    # Second order through the symbolic graph too.
    hess = fg.grad(fg.trace(lambda w, x: fg.sum(fg.grad(loss)(w, x) ** 2), fg.spec((4, 3)), fg.spec((T, 4))))
    x = _rows(5, 4)
    _assert_equal(fg.interpret(hess, w, x), fg.grad(lambda w, x: fg.sum(fg.grad(loss)(w, x) ** 2))(w, x),
                  rtol=1e-5, atol=1e-6)


def test_adam_step_on_a_symbolic_graph():
    params = {"w": RNG.normal(size=(4, 3)).astype(np.float32)}
    step = fg.adam_step(fg.trace(lambda p, x: loss(p["w"], x), {"w": fg.spec((4, 3))}, fg.spec((T, 4))), lr=1e-2)
    exe = fg.compile(step, donate_argnums=(0, 1))
    state = fg.adam_init(params)
    p_ref, s_ref = params, state
    p_dev, s_dev = fg.device_put(params), fg.device_put(state)
    for t in (3, 1, 17):
        x = _rows(t, 4)
        p_ref, s_ref, l_ref = fg.interpret(step, p_ref, s_ref, x)
        p_dev, s_dev, l_dev = exe(p_dev, s_dev, x)
        _assert_equal((p_dev, s_dev, l_dev), (p_ref, s_ref, l_ref), rtol=1e-4, atol=1e-6)


def test_take_gradient_by_scatter_over_a_symbolic_count(monkeypatch):
    import fgrad.primitives.indexing as indexing

    monkeypatch.setattr(indexing, "ONE_HOT_GRADIENT_LIMIT", 0)  # the scatter-add path of big tables
    table = RNG.normal(size=(6, 2)).astype(np.float32)
    graph = fg.grad(fg.trace(lambda e, i: fg.sum(fg.take(e, i, axis=0) ** 2), fg.spec((6, 2)), fg.spec(T, "i32")))
    assert "scatter_add" in {n.op for n in graph.nodes}
    exe = fg.compile(graph)
    for t in (1, 9):
        i = RNG.integers(-6, 6, t).astype(np.int32)
        _assert_equal(exe(table, i), fg.interpret(graph, table, i), rtol=1e-5, atol=1e-6)


def test_symbolic_attention_golden(golden):
    def attention(q, k):
        s = fg.softmax(q @ k.T / 2.0 + fg.where(fg.causal_mask(q.shape[0]), 0.0, -1e9), axis=-1)
        return s @ k

    program = lower(fg.trace(attention, fg.spec((fg.dim("T", 512), 8)), fg.spec((fg.dim("T", 512), 8))))
    golden("symbolic_attention", "\n".join(k.wgsl for k in program.kernels))


# ---------------------------------------------------------------------------
# Errors: named, with the symbol, never a crash or wrong numbers
# ---------------------------------------------------------------------------


def test_call_time_errors_name_the_symbol_and_arguments():
    graph = fg.trace(lambda x, y: x + y, fg.spec((T, 4)), fg.spec((T, 4)))
    exe = fg.compile(graph)
    for run in (exe, lambda *a: fg.interpret(graph, *a)):
        with pytest.raises(fg.InputError, match=r"arguments disagree on the symbol T: x \(axis 0\) gives 3, y \(axis 0\) "
                                                r"gives 4"):
            run(_rows(3, 4), _rows(4, 4))
        with pytest.raises(fg.InputError, match=r"argument x \(axis 0\) gives the symbol T the value 129, outside 1\.\.128"):
            run(_rows(129, 4), _rows(129, 4))
        with pytest.raises(fg.InputError, match=r"argument y is float32\[3,5\], expected f32\[T,4\]"):
            run(_rows(3, 4), _rows(3, 5))


@pytest.mark.parametrize("fn, match", [
    (lambda x: fg.reshape(x, (-1,)), r"reshape: cannot reshape \(T, 64\) into \(-1,\): -1 would be a product with "
                                     r"the symbol T"),
    (lambda x: fg.reshape(x, (x.shape[0], 8, 4)), r"reshape: cannot reshape \(T, 64\) into \(T, 8, 4\)"),
    (lambda x: fg.reshape(x, (4, x.shape[0], 16)), r"the symbol T must stay a factor of an axis of its own"),
    (lambda x: x + np.ones((8, 64), np.float32), r"add: cannot broadcast \(T, 64\) with \(8, 64\)"),
    (lambda x: x[1:3], r"getitem: slice 1:3:None of the symbolic axis T"),
    (lambda x: fg.concatenate([x, x], axis=0), r"concatenate: .* axis 0, which is the symbol T"),
    (lambda x: fg.pad(x, ((1, 0), (0, 0))), r"pad: .* symbolic axis T"),
    (lambda x: x + fg.dim("T", 64), r"the symbol T is given two maxima, 128 and 64"),
    (lambda x: fg.reshape(x, (fg.dim("T", 64), 64)), r"the symbol T is given two maxima"),
    (lambda x: fg.sum(x) * fg.dim("L", 8), r"the symbol L is in no argument's shape"),
    (lambda x: len(x), r"len\(\) of a Tensor f32\[T,64\]: its first axis is the symbol T"),
    (lambda x: x.size, r"f32\[T,64\] has no fixed size: it follows the symbol T"),
])
def test_unsupported_uses_are_shape_errors_naming_the_symbol(fn, match):
    with pytest.raises((fg.ShapeError, fg.TraceError), match=match) as e:
        fg.trace(fn, fg.spec((T, 64)))
    assert "test_symbolic.py:" in str(e.value)


def test_dims_print_compare_and_refuse_bad_settings():
    assert fg.dim("T", 128) == T and hash(fg.dim("T", 128)) == hash(T) and fg.dim("T", 64) != T
    spec = fg.spec((T, 64))
    assert str(spec) == "f32[T,64]" and spec.max_shape == (128, 64) and spec.max_nbytes == 128 * 64 * 4
    assert spec.resolve({"T": 3}) == fg.spec((3, 64)) and spec.symbols == (T,)
    assert "# T <= 128" in str(fg.trace(lambda x: x * 2.0, spec)).splitlines()[0]
    with pytest.raises(fg.ShapeError, match="must be an identifier"):
        fg.dim("2T", 4)
    with pytest.raises(fg.ShapeError, match="must be an integer from 1"):
        fg.dim("T", 0)
    with pytest.raises(fg.ShapeError, match="given two maxima"):
        fg.spec((T, fg.dim("T", 3)))
    with pytest.raises(fg.ShapeError, match="has a value only inside a traced function"):
        fg.multiply(np.ones(3), T)


def test_symbolic_programs_round_trip_through_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    graph = fg.trace(block, fg.spec((T, 64)))
    first = fg.compile(graph)
    assert len(list(tmp_path.glob("*.program"))) == 1
    second = fg.compile(fg.trace(block, fg.spec((T, 64))))
    assert second.program == first.program
    other = fg.compile(fg.trace(block, fg.spec((fg.dim("T", 8), 64))))  # another maximum: another program
    assert len(list(tmp_path.glob("*.program"))) == 2 and other.program.buffers != first.program.buffers
    x = _rows(5)
    _assert_equal(second(x), fg.interpret(graph, x), rtol=1e-4, atol=1e-5)


def test_a_symbol_named_like_a_wgsl_keyword_compiles():
    """The uniform's members are the symbols' names: a name WGSL reserves (`loop`) must still validate."""
    loop = fg.dim("loop", 9)
    graph = fg.trace(lambda x: fg.softmax(x, axis=0) * 2.0, fg.spec((loop, 4)))
    x = _rows(3, 4)
    _assert_equal(fg.compile(graph)(x), fg.interpret(graph, x))


def test_a_spec_passed_as_a_call_argument_is_an_input_error():
    graph = fg.trace(lambda x: x * 2.0, fg.spec((T, 4)))
    exe = fg.compile(graph)
    for run in (exe, lambda *a: fg.interpret(graph, *a)):
        for arg in (fg.spec((T, 4)), fg.spec((3, 4))):
            with pytest.raises(fg.InputError, match=r"argument x is a Spec .*, expected an array f32\[T,4\]") as e:
                run(arg)
            assert "test_symbolic.py:" in str(e.value)


@pytest.mark.parametrize("fn, how", [
    (lambda x: x * int(x.shape[0]), r"int\(T\)"),
    (lambda x: x * float(x.shape[0]), r"float\(T\)"),
    (lambda x: x + np.zeros(x.shape, np.float32), r"T as an integer"),
    (lambda x: [x[i] for i in range(x.shape[0])], r"T as an integer"),
    (lambda x: fg.reshape(x, (x.shape[0] * 2, 32)), r"T \* 2"),
    (lambda x: x if x.shape[0] > 3 else -x, r"T > 3"),
])
def test_a_symbol_used_as_a_python_number_is_a_trace_error(fn, how):
    with pytest.raises(fg.TraceError, match=how + r": the symbol T \(1\.\.128\) is a size known only when") as e:
        fg.trace(fn, fg.spec((T, 64)))
    assert "test_symbolic.py:" in str(e.value)
    graph = fg.trace(lambda x: x * (fg.asarray(x.shape[0]) + 1), fg.spec((T, 64)))  # what the message offers
    _assert_equal(fg.interpret(graph, _rows(3)), _rows(3) * 4)


def test_arguments_giving_one_symbol_two_maxima_name_the_users_line():
    with pytest.raises(fg.ShapeError, match=r"trace: the arguments' shapes: the symbol T is given two maxima, 128 and "
                                            r"4.*test_symbolic.py:"):
        fg.trace(lambda x, y: x, fg.spec((T, 8)), fg.spec((fg.dim("T", 4), 8)))


@pytest.mark.parametrize("fn", [lambda x: x[128], lambda x: x[-129, 0], lambda x: fg.take(x, np.array([1, 200]), axis=0)])
def test_a_constant_index_past_the_maximum_of_a_symbolic_axis_is_a_shape_error(fn):
    """Out of bounds at every value of the symbol: refused while tracing, not clamped at run time."""
    with pytest.raises(fg.ShapeError, match=r"out of bounds for axis 0 of \(T, 64\) at every size of the symbol T, "
                                            r"1\.\.128.*test_symbolic.py:"):
        fg.trace(fn, fg.spec((T, 64)))


@pytest.mark.parametrize("fn", [fg.argmax, fg.argmin, fg.cumsum], ids=["argmax", "argmin", "cumsum"])
def test_flattening_a_symbolic_operand_names_the_function_and_the_symbol(fn):
    def f(x):
        return fn(x)

    with pytest.raises(fg.ShapeError, match=rf"^{fn.__name__}: axis=None flattens \(T, 4\).* symbol T; give an axis"):
        fg.trace(f, fg.spec((fg.dim("T", 8), 4)))


def test_f16_results_of_an_odd_symbolic_length_get_whole_word_buffers():
    """A result's buffer at the call's T, and the copy of a returned input, are whole words: 3 f16
    values are 6 bytes, and a copy or a readback of 6 bytes is refused by WebGPU."""
    device = fg.default_device()
    if "shader-f16" not in device.device.features:
        pytest.skip(f"{device.name} has no shader-f16 (the clear error is tested in tests/test_dtypes.py)")
    T = fg.dim("T", 9)

    def f(x):
        return x * 2.0 + 1.0, x

    exe = fg.compile(fg.trace(f, fg.spec((T,), "f16")))
    for n in (3, 9, 1):
        x = np.linspace(-1, 1, n).astype(np.float16)
        doubled, same = exe(x)
        np.testing.assert_array_equal(doubled.numpy(), x * np.float16(2) + np.float16(1))
        np.testing.assert_array_equal(same.numpy(), x)
