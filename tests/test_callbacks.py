"""Callbacks: `fg.pure_callback`, `fg.debug.callback` and `fg.debug.print`, eagerly, through the
interpreter and compiled (the program reads operands back between its kernels), under grad, vmap
and control flow, with JAX's semantics: what is printed, how often, with which values."""

from __future__ import annotations

import numpy as np
import pytest

import fgrad as fg

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

X = np.array([0.5, -1.0, 2.0], np.float32)


def lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def run_three_ways(fn, *args):
    """fn's results eagerly, through the interpreter and compiled, one at a time (for what each prints)."""
    yield fn(*args)
    yield fg.interpret(fg.trace(fn, *args), *args)
    yield fg.jit(fn)(*args)


# ---------------------------------------------------------------------------
# debug.print
# ---------------------------------------------------------------------------


def test_print_shows_the_values_computed_where_it_is_called(capsys):
    def f(x):
        y = fg.exp(x) * 2.0
        fg.debug.print("y = {y}, first {}", x[0], y=y)
        return y.sum()

    for got in run_three_ways(f, X):
        np.testing.assert_allclose(np.asarray(got), (np.exp(X) * 2).sum(), rtol=1e-6)
        printed = lines(capsys)
        assert len(printed) == 1
        # The device's exp may differ from NumPy's in the last digit: the numbers are compared.
        assert printed[0].split("[")[0] == "y = " and printed[0].endswith(f"first {X[0]}")
        np.testing.assert_allclose(np.array(printed[0].split("[")[1].split("]")[0].split(), np.float32),
                                   np.exp(X) * 2, rtol=1e-6)


def test_print_without_placeholders_and_with_format_specs(capsys):
    def f(x):
        fg.debug.print("values", x, x.sum(), skip_format_check=True)
        fg.debug.print("{:.2f} {s:>6}", x.sum(), s="text")
        return x

    for _ in run_three_ways(f, X):
        assert lines(capsys) == [f"values {X} {X.sum()}", f"{X.sum():.2f}   text"]
    with pytest.raises(fg.InputError, match="arguments the format does not use"):  # as JAX's, unless skipped
        fg.debug.print("values", X)


def test_print_follows_numpy_print_options_when_traced(capsys):
    f = fg.jit(lambda x: (fg.debug.print("{}", x / 3.0), x)[1])
    with np.printoptions(precision=2):
        f(X)  # traced here, with two digits
    f(X)  # as traced
    assert lines(capsys) == ["[ 0.17 -0.33  0.67]"] * 2


def test_two_prints_of_one_value_both_print(capsys):
    def f(x):
        for _ in range(2):
            fg.debug.print("again {}", x)
        return x * 1.0

    for _ in run_three_ways(f, X):
        assert lines(capsys) == [f"again {X}"] * 2


def test_a_print_nothing_reads_is_kept_and_ordered_among_the_kernels(capsys):
    def f(x):
        fg.debug.print("1 {}", x.max())
        y = fg.tanh(x) @ np.ones((3, 2), np.float32)
        fg.debug.print("2 {}", y.sum())
        return y

    fg.jit(f)(X)
    printed = lines(capsys)
    assert [p.split()[0] for p in printed] == ["1", "2"]
    assert float(printed[0].split()[1]) == X.max()
    np.testing.assert_allclose(float(printed[1].split()[1]), 2 * np.tanh(X).sum(), rtol=1e-5)


def test_print_misuse_is_named():
    with pytest.raises(fg.InputError, match=r"debug.print: positional arguments the format does not use.*test_callbacks"):
        fg.debug.print("{}", 1, 2)
    with pytest.raises(fg.InputError, match="f-string"):
        fg.debug.print("{a}", a=1, b=2)
    with pytest.raises(fg.InputError, match="format must be a str"):
        fg.debug.print(3)
    with pytest.raises(fg.InputError, match="two-step form"):
        fg.debug.print(None, 1)
    with pytest.raises(fg.InputError, match=r"debug.print: the format '\{0\} \{1\}' does not fit its arguments: "
                                            r"IndexError"):
        fg.debug.print("{0} {1}", 1)
    with pytest.raises(fg.InputError, match="does not fit its arguments: KeyError"):
        fg.debug.print("{a}", b=1)


def test_callbacks_are_called_before_the_call_returns(capsys):
    """As JAX's effects_barrier waits for: fgrad's callbacks have all run when a call returns."""
    fg.jit(lambda x: (fg.debug.print("now {}", x), x + 1.0)[1])(np.float32(2))
    assert lines(capsys) == ["now 2.0"]
    assert fg.effects_barrier() is None and lines(capsys) == []


def test_two_step_forms(capsys):
    fg.jit(lambda x: (fg.debug.print(ordered=True)("v {}", x), x)[1])(X)
    seen = []
    fg.jit(lambda x: (fg.debug.callback(ordered=True)(lambda a: seen.append(a.sum()), x), x)[1])(X)
    assert lines(capsys) == [f"v {X}"]
    assert seen == [X.sum()]


# ---------------------------------------------------------------------------
# debug.callback under transforms and control flow
# ---------------------------------------------------------------------------


def test_callback_gets_static_arguments_and_keywords_as_they_are():
    seen = []

    def record(tag, value, *, scale):
        seen.append((tag, value.tolist(), scale))

    fg.jit(lambda x: (fg.debug.callback(record, "tag", x, scale=3), x)[1])(X)
    fg.debug.callback(record, "eager", X, scale=4)
    assert seen == [("tag", X.tolist(), 3), ("eager", X.tolist(), 4)]
    with pytest.raises(fg.InputError, match="must be callable"):
        fg.debug.callback(3, X)


def test_under_grad_the_primal_values_print(capsys):
    def loss(x):
        fg.debug.print("x {}", x)
        return fg.sum(fg.sin(x) ** 2)

    for grad in (fg.grad(loss), fg.jit(fg.grad(loss))):
        np.testing.assert_allclose(grad(X), np.sin(2 * X), rtol=1e-5)
        assert lines(capsys) == [f"x {X}"]


def test_under_vmap_each_element_prints_in_order(capsys):
    xs = np.stack([X, X + 1, X + 2])

    def f(x):
        fg.debug.print("row {}", x)
        return x.sum()

    for vmapped in (fg.vmap(f), fg.jit(fg.vmap(f))):
        np.testing.assert_allclose(vmapped(xs), xs.sum(1), rtol=1e-6)
        assert lines(capsys) == [f"row {r}" for r in xs]


def test_in_a_scan_every_iteration_prints(capsys):
    def f(xs):
        def body(c, x):
            fg.debug.print("{} {}", c, x)
            return c + x, c * x
        return fg.lax.scan(body, np.float32(1), xs)

    want = []
    c = np.float32(1)
    for x in X:
        want.append(f"{c} {x}")
        c = c + x
    for out in run_three_ways(f, X):
        np.testing.assert_allclose(np.asarray(out[0]), c)
        assert lines(capsys) == want


def test_in_a_while_loop_predicate_and_body_print_each_time(capsys):
    def f(n):
        def test(i):
            fg.debug.print("test {}", i)
            return i < n

        def body(i):
            fg.debug.print("body {}", i)
            return i + 1
        return fg.lax.while_loop(test, body, 0)

    want = [line for i in range(3) for line in (f"test {i}", f"body {i}")] + ["test 3"]
    for out in run_three_ways(f, 3):
        assert int(np.asarray(out)) == 3
        assert lines(capsys) == want


def test_in_nested_loops_on_the_device(capsys):
    def f(x):
        def outer(k, acc):
            def inner(j, a):
                fg.debug.print("{} {}", k, j)
                return a + fg.take(x, j)
            return fg.lax.fori_loop(0, k, inner, acc)
        return fg.lax.fori_loop(0, 3, outer, np.float32(0))

    want = [f"{k} {j}" for k in range(3) for j in range(k)]
    for out in run_three_ways(f, X):
        np.testing.assert_allclose(float(np.asarray(out)), X[0] * 2 + X[1], rtol=1e-6)
        assert lines(capsys) == want


@pytest.mark.parametrize("index", [-1, 0, 1, 2, 7])
def test_in_a_branch_only_the_branch_taken_prints(capsys, index):
    branches = [lambda x: (fg.debug.print("b0 {}", x), x + 1.0)[1],
                lambda x: x * 2.0,
                lambda x: (fg.debug.print("b2 {}", x), fg.debug.print("b2 again"), x - 1.0)[2]]
    taken = int(np.clip(index, 0, 2))
    want = {0: [f"b0 {X}"], 1: [], 2: [f"b2 {X}", "b2 again"]}[taken]
    for out in run_three_ways(lambda i, x: fg.lax.switch(i, branches, x), index, X):
        np.testing.assert_allclose(np.asarray(out), [X + 1, X * 2, X - 1][taken])
        assert lines(capsys) == want


def test_in_a_custom_vjp_function_of_several_results_it_prints_once(capsys):
    @fg.custom_vjp
    def f(x):
        fg.debug.print("f {}", x)
        return x * 2.0, x * 3.0

    f.defvjp(lambda x: (f(x), None), lambda r, g: (g[0] * 2.0 + g[1] * 3.0,))
    for out in run_three_ways(lambda x: f(x), X):
        np.testing.assert_allclose(np.asarray(out[1]), X * 3)
        assert lines(capsys) == [f"f {X}"]


def test_symbolic_shapes_reach_the_callback_at_the_call_s_sizes():
    T = fg.dim("T", 16)
    seen = []
    exe = fg.compile(fg.trace(lambda x: (fg.debug.callback(lambda a: seen.append(a.copy()), x * 2.0), x + 1.0)[1],
                              fg.spec((T,))))
    for n in (3, 7):
        x = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(exe(x).numpy(), x + 1)
    assert [s.tolist() for s in seen] == [[0.0, 2.0, 4.0], [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0]]


def test_the_graph_keeps_effects_and_never_merges_them():
    graph = fg.trace(lambda x: (fg.debug.print("{}", x), fg.debug.print("{}", x), x)[2], X)
    simplified = fg.simplify(graph)
    assert [n.op for n in simplified.nodes].count("debug_callback") == 2
    assert simplified.effectful and not fg.simplify(fg.trace(lambda x: x * 2.0, X)).effectful


# ---------------------------------------------------------------------------
# pure_callback
# ---------------------------------------------------------------------------


def test_pure_callback_values_and_pytrees_three_ways():
    def f(x):
        out = fg.pure_callback(lambda a, *, k: {"gt": a > k, "i": np.argmax(a), "s": np.sort(a)},
                               {"gt": fg.ShapeDtypeStruct((3,), bool), "i": fg.ShapeDtypeStruct((), np.int32),
                                "s": fg.ShapeDtypeStruct((3,), np.float32)}, fg.exp(x), k=1.0)
        return out["s"] * 2.0, out["gt"], out["i"] + 1

    for s, gt, i in run_three_ways(f, X):
        np.testing.assert_allclose(np.asarray(s), np.sort(np.exp(X)) * 2, rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(gt), np.exp(X) > 1.0)
        assert int(np.asarray(i)) == int(np.argmax(X)) + 1


def test_pure_callback_of_unsigned_and_64_bit_results():
    f = fg.jit(lambda x: fg.pure_callback(lambda a: (a.astype(np.uint32) * 3, a.astype(np.float64) / 3),
                                          (fg.ShapeDtypeStruct((3,), fg.u32), fg.ShapeDtypeStruct((3,), fg.f32)), x))
    u, d = f(np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal(u.numpy(), np.array([3, 6, 9], np.uint32))
    np.testing.assert_allclose(d.numpy(), np.array([1, 2, 3], np.float32) / 3)


def test_pure_callback_runs_per_call_not_when_traced_nor_when_unused():
    calls = []

    def count(a):
        calls.append(1)
        return a + 1.0

    spec = fg.ShapeDtypeStruct((3,), np.float32)
    f = fg.jit(lambda x: fg.pure_callback(count, spec, np.ones(3, np.float32)) * x)
    g = fg.jit(lambda x: (fg.pure_callback(count, spec, x), x * 2.0)[1])
    assert not calls
    for _ in range(2):
        np.testing.assert_allclose(f(X).numpy(), 2 * X)
        np.testing.assert_allclose(g(X).numpy(), 2 * X)
    assert len(calls) == 2  # f's two calls; g's result is unused, so its callback is dropped, as JAX may


def test_pure_callback_in_a_compiled_scan_is_called_per_iteration():
    f = fg.jit(lambda xs: fg.lax.scan(
        lambda c, x: (fg.pure_callback(lambda a, b: a * b + 1.0, fg.ShapeDtypeStruct((), np.float32), c, x), c),
        np.float32(1), xs))
    c, ys = f(X)
    want, seen = np.float32(1), []
    for x in X:
        seen.append(want)
        want = want * x + 1
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(ys.numpy(), seen, rtol=1e-6)


def test_functions_of_one_name_are_not_confused():
    made = [fg.jit(lambda x, k=k: fg.pure_callback(lambda a: a + k, fg.ShapeDtypeStruct((3,), np.float32), x))
            for k in range(3)]
    for k, f in enumerate(made):
        np.testing.assert_allclose(f(X).numpy(), X + k)


@pytest.mark.parametrize("method,shapes", [
    ("sequential", [((), ())] * 3), ("sequential_unrolled", [((), ())] * 3), ("expand_dims", [((3,), (1,))]),
    ("broadcast_all", [((3,), (3,))]), ("legacy_vectorized", [((3,), ())]),
])
def test_vmap_methods_as_jax(method, shapes):
    seen = []

    def h(a, b):
        seen.append((a.shape, b.shape))
        return a * 2.0 + b

    def f(x, y):
        return fg.pure_callback(h, fg.ShapeDtypeStruct((), np.float32), x, y, vmap_method=method)

    for vmapped in (fg.vmap(f, in_axes=(0, None)), fg.jit(fg.vmap(f, in_axes=(0, None)))):
        seen.clear()
        np.testing.assert_allclose(np.asarray(vmapped(X, np.float32(1))), X * 2 + 1)
        assert seen == shapes


def test_pure_callback_misuse_is_named():
    spec = fg.ShapeDtypeStruct((3,), np.float32)
    with pytest.raises(fg.MissingRule, match="vmap_method"):
        fg.vmap(lambda x: fg.pure_callback(np.sin, fg.ShapeDtypeStruct((), np.float32), x))(X)
    with pytest.raises(fg.TraceError, match="no derivative.*custom_vjp"):
        fg.grad(lambda x: fg.pure_callback(np.sin, spec, x).sum())(X)
    with pytest.raises(fg.TraceError, match="no derivative"):
        fg.jvp(lambda x: fg.pure_callback(np.sin, spec, x), (X,), (X,))
    with pytest.raises(fg.InputError, match="vmap_method must be"):
        fg.pure_callback(np.sin, spec, X, vmap_method="parallel")
    with pytest.raises(fg.InputError, match="must be callable"):
        fg.pure_callback(None, spec, X)
    with pytest.raises(fg.InputError, match="shape and a dtype"):
        fg.pure_callback(np.sin, [3], X)
    with pytest.raises(fg.DTypeError, match="float64"):  # an array as the leaf: JAX refuses 64 bits too
        fg.pure_callback(np.sin, np.zeros(3), X)
    f = fg.jit(lambda x: fg.pure_callback(lambda a: np.ones(4, np.float32), spec, x))
    with pytest.raises(fg.ShapeError, match=r"returned result 0 of shape \(4,\).*f32\[3\] at test_callbacks.py"):
        f(X)
    with pytest.raises(fg.DTypeError, match="returned result 0 of dtype int32"):
        fg.pure_callback(lambda a: a.astype(np.int32), spec, X)
    with pytest.raises(fg.ShapeError, match="returned the structure"):
        fg.interpret(fg.trace(lambda x: fg.pure_callback(lambda a: (a, a), spec, x), X), X)


def test_a_callback_s_exception_reaches_the_caller_and_the_program_runs_on():
    def check(a):
        if (a < 0).any():
            raise ValueError("negative input")
        return np.sqrt(a)

    f = fg.jit(lambda x: fg.pure_callback(check, fg.ShapeDtypeStruct((3,), np.float32), x * 2.0) + 1.0)
    with pytest.raises(ValueError, match="negative input"):
        f(X)
    np.testing.assert_allclose(f(np.abs(X)).numpy(), np.sqrt(2 * np.abs(X)) + 1, rtol=1e-6)


def test_a_custom_jvp_gives_a_pure_callback_a_derivative():
    @fg.custom_jvp
    def sin(x):
        return fg.pure_callback(np.sin, fg.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")

    @sin.defjvp
    def _(primals, tangents):
        x, = primals
        t, = tangents
        return sin(x), fg.pure_callback(np.cos, fg.ShapeDtypeStruct(x.shape, x.dtype), x) * t

    for grad in (fg.grad(lambda x: sin(x).sum()), fg.jit(fg.grad(lambda x: sin(x).sum()))):
        np.testing.assert_allclose(np.asarray(grad(X)), np.cos(X), rtol=1e-6)


# ---------------------------------------------------------------------------
# experimental.io_callback
# ---------------------------------------------------------------------------


def test_io_callback_is_called_each_time_even_unused_and_in_order():
    log = []

    def note(tag, a):
        log.append((tag, a.tolist()))
        return np.float32(len(log))

    spec = fg.ShapeDtypeStruct((), np.float32)

    def f(x):
        first = fg.experimental.io_callback(note, spec, "a", x)
        fg.experimental.io_callback(note, spec, "unused", x * 2.0)
        return first + fg.experimental.io_callback(note, spec, "b", x)

    for out in run_three_ways(f, np.float32(1)):
        assert float(np.asarray(out)) == len(log) - 2 + len(log)  # the first and the third calls' counts
        assert [t for t, _ in log[-3:]] == ["a", "unused", "b"] and log[-2][1] == 2.0
    assert len(log) == 9


def test_io_callback_under_vmap_and_its_misuse():
    seen = []
    spec = fg.ShapeDtypeStruct((), np.float32)
    f = lambda x: fg.experimental.io_callback(lambda a: (seen.append(a.shape), a * 2)[1], spec, x)  # noqa: E731
    for vmapped in (fg.vmap(f), fg.jit(fg.vmap(f))):
        seen.clear()
        np.testing.assert_allclose(np.asarray(vmapped(X)), X * 2)
        assert seen == [()] * 3
    with pytest.raises(fg.TraceError, match="ordered callback cannot be vmapped"):
        fg.vmap(lambda x: fg.experimental.io_callback(np.sin, spec, x, ordered=True))(X)
    with pytest.raises(fg.TraceError, match="io_callback: a callback has no derivative"):
        fg.grad(lambda x: fg.experimental.io_callback(np.sin, spec, x))(np.float32(1))
    with pytest.raises(fg.ShapeError, match="io_callback: .* returned result 0 of shape"):
        fg.jit(lambda x: fg.experimental.io_callback(lambda a: np.ones(2, np.float32), spec, x))(np.float32(1))
