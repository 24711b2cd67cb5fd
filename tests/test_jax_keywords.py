"""The keyword parameters of JAX's transforms and of jax.lax functions, in fgrad: each one JAX takes
is taken (a signature table), each checked against JAX's result (values, shapes, dtypes), eagerly
and compiled where compiling changes the path, and each value fgrad cannot honour refused with an
fgrad error naming the function, the value and the caller's line."""

from __future__ import annotations

import inspect
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

D = Draws(11)
X = D.f32(4)
M = D.f32(3, 2)
N = np.array([2, -1, 3, 0], np.int32)
FLOAT0 = np.dtype([("float0", np.void, 0)])


def jax_(fn, *args, **kwargs):
    """JAX's result with its warnings silenced, arrays as NumPy's (float0 ones too)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return jax.tree_util.tree_map(np.asarray, fn(*args, **kwargs))


def leaves(tree):
    return jax.tree_util.tree_leaves(jax.tree_util.tree_map(np.asarray, tree))


def check(got, want, what):
    same(leaves(got), leaves(want), what, oracle="jax")


# -- every keyword JAX's functions take, fgrad's take --------------------------------------------------

LAX_ACCURATE = ["exp", "exp2", "expm1", "log", "log1p", "logistic", "sin", "cos", "tan", "tanh", "sqrt", "rsqrt",
                "cbrt"]
SIGNATURES = [
    *((name, getattr(fg, name), getattr(jax, name)) for name in (
        "grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev", "jacobian", "hessian", "jit",
        "pmap", "vmap", "make_jaxpr", "checkpoint", "remat", "device_put", "eval_shape")),
    *((f"lax.{name}", getattr(fg.lax, name), getattr(jax.lax, name)) for name in (
        "cond", "switch", "all_gather", "dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim",
        "dynamic_update_slice_in_dim", *LAX_ACCURATE)),
]


# Keywords JAX 0.11 added that fgrad does not take yet: vjp's saveable_args (arguments left out of
# what the pullback keeps) and both functions' in_nzs.
NOT_YET = {("vjp", "saveable_args"), ("vjp", "in_nzs"), ("linearize", "in_nzs")}


@pytest.mark.parametrize("name, ours, theirs", SIGNATURES, ids=[s[0] for s in SIGNATURES])
def test_every_keyword_of_jax_is_taken(name, ours, theirs):
    def keywords(fn):  # the parameters a caller may name (the function itself is positional in both)
        params = list(inspect.signature(fn).parameters.values())[1:]
        return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]

    missing = [k for k in keywords(theirs) if k not in keywords(ours) and (name, k) not in NOT_YET]
    assert not missing, f"{name}: JAX's keywords {missing} are missing"
    theirs_defaults = {k: p.default for k, p in inspect.signature(theirs).parameters.items()}
    for k, p in inspect.signature(ours).parameters.items():  # a default of JAX's is fgrad's default too
        want = theirs_defaults.get(k)
        if isinstance(want, (bool, int, str, tuple)):
            assert p.default == want, f"{name}: {k} defaults to {p.default!r}, JAX's to {want!r}"


# -- refusals: (function, error class, words of the message), each called on a line of its own ---------

REFUSED = {
    "grad-holomorphic": (lambda: fg.grad(total, holomorphic=True), fg.DTypeError,
                         ["grad", "holomorphic=True", "no complex dtype"]),
    "value_and_grad-reduce_axes": (lambda: fg.value_and_grad(total, reduce_axes=("i",)), fg.InputError,
                                   ["value_and_grad", "reduce_axes=('i',)", "deprecated"]),
    "vjp-reduce_axes": (lambda: fg.vjp(total, X, reduce_axes=("i",)), fg.InputError, ["vjp", "reduce_axes"]),
    "grad-int": (lambda: fg.grad(lambda n: fg.sum(n * 1.0))(N), fg.DTypeError, ["grad", "i32[4]", "allow_int=True"]),
    "grad-float0-in-scan": (lambda: fg.lax.scan(lambda c, n: (c, fg.grad(lambda x, m: x * m, argnums=(0, 1),
                                                                         allow_int=True)(c, n)), np.float32(1), N),
                            fg.TraceError, ["scan", "float0 zeros", "allow_int=True"]),
    "grad-float0-argument": (lambda: fg.jit(lambda g, x: x)(np.zeros(3, FLOAT0), X), fg.DTypeError,
                             ["jit", "argument g", "float0", "holds no data"]),
    "jacfwd-holomorphic": (lambda: fg.jacfwd(total, holomorphic=True), fg.DTypeError, ["jacfwd", "holomorphic"]),
    "jacrev-holomorphic": (lambda: fg.jacrev(total, holomorphic=True), fg.DTypeError, ["jacrev", "holomorphic"]),
    "jacobian-holomorphic": (lambda: fg.jacobian(total, holomorphic=True), fg.DTypeError, ["jacrev", "holomorphic"]),
    "hessian-holomorphic": (lambda: fg.hessian(total, holomorphic=True), fg.DTypeError, ["hessian", "holomorphic"]),
    "jacrev-int": (lambda: fg.jacrev(lambda n: n * 2.0)(N), fg.DTypeError, ["jacrev", "i32[4]", "allow_int=True"]),
    "jit-device": (lambda: fg.jit(total, device="gpu:1"), fg.InputError, ["jit", "device", "'gpu:1'",
                                                                            "fg.local_devices()"]),
    "jit-backend": (lambda: fg.jit(total, backend="tpu"), fg.InputError, ["jit", "backend 'tpu'"]),
    "jit-device-and-backend": (lambda: fg.jit(total, device=fg.default_device(), backend=fg.default_backend()),
                               fg.InputError, ["jit", "not both"]),
    "jit-in_shardings": (lambda: fg.jit(total, in_shardings=("x",)), fg.InputError, ["jit: in_shardings",
                                                                                       "expected a sharding", "'x'"]),
    "jit-out_shardings": (lambda: fg.jit(total, out_shardings=0), fg.InputError, ["jit: out_shardings", "got 0"]),
    "jit-compiler_options": (lambda: fg.jit(total, compiler_options={"xla_cpu": 1}), fg.InputError,
                             ["jit", "compiler_options={'xla_cpu': 1}", "no options"]),
    "jit-keep_unused": (lambda: fg.jit(total, keep_unused="yes"), fg.InputError, ["jit", "keep_unused", "'yes'"]),
    "jit-inline": (lambda: fg.jit(total, inline=None), fg.InputError, ["jit", "inline", "bool"]),
    "jit-no-function": (lambda: fg.jit(None), fg.TraceError, ["jit", "expected a function"]),
    "pmap-devices": (lambda: fg.pmap(total, devices=["tpu:0"]), fg.InputError, ["pmap", "devices", "tpu:0"]),
    "pmap-backend": (lambda: fg.pmap(total, backend="tpu"), fg.InputError, ["pmap", "backend 'tpu'"]),
    "make_jaxpr-axis_env": (lambda: fg.make_jaxpr(total, axis_env=[("i",)]), fg.InputError,
                            ["make_jaxpr", "axis_env", "(name, size)"]),
    "make_jaxpr-unbound": (lambda: fg.make_jaxpr(lambda x: fg.lax.psum(x, "j"), axis_env=[("i", 2)])(X),
                           fg.AxisNameError, ["psum", "unbound axis name 'j'"]),
    "checkpoint-concrete": (lambda: fg.checkpoint(total, concrete=True), fg.InputError,
                            ["checkpoint", "concrete=True", "static_argnums"]),
    "checkpoint-static_argnames": (lambda: fg.checkpoint(total, static_argnames=3), fg.InputError,
                                   ["checkpoint", "static_argnames", "3"]),
    "device_put-device": (lambda: fg.device_put(X, "cpu:0"), fg.InputError, ["device_put", "device", "'cpu:0'"]),
    "device_put-src": (lambda: fg.device_put(X, src="cpu:0"), fg.InputError, ["device_put", "'cpu:0'"]),
    "device_put-donate-and-may_alias": (lambda: fg.device_put(X, donate=True, may_alias=True), fg.InputError,
                                        ["device_put", "may_alias and donate"]),
    "device_put-donate": (lambda: fg.device_put(X, donate="yes"), fg.InputError, ["device_put", "donate='yes'"]),
    "device_put-prefix": (lambda: fg.device_put((X, X), donate=(True, False, True)), fg.InputError,
                          ["device_put: donate", "not a prefix"]),
    "vmap-out_axes-None": (lambda: fg.vmap(lambda x: x * 2, out_axes=None)(M), fg.InputError,
                           ["vmap", "out_axes is None", "sum_match=True"]),
    "vmap-sum_match": (lambda: fg.vmap(total, sum_match="yes"), fg.InputError, ["vmap", "sum_match", "'yes'"]),
    "cond-operand-twice": (lambda: fg.lax.cond(True, total, total, X, operand=X), fg.InputError,
                           ["cond", "operand=", "1 positional"]),
    "switch-operand-twice": (lambda: fg.lax.switch(0, [total, total], X, X, operand=X), fg.InputError,
                             ["switch", "operand=", "2 positional"]),
    "all_gather-invarying": (lambda: fg.vmap(lambda v: fg.lax.all_gather(v, "i", to="invarying"), axis_name="i")(M),
                             fg.InputError, ["all_gather", "to='invarying'", "shard_map"]),
    "all_gather-reduced": (lambda: fg.vmap(lambda v: fg.lax.all_gather(v, "i", to="reduced"), axis_name="i")(M),
                           fg.InputError, ["all_gather", "to='reduced'"]),
    "all_gather-unknown": (lambda: fg.vmap(lambda v: fg.lax.all_gather(v, "i", to="all"), axis_name="i")(M),
                           fg.InputError, ["all_gather", "to='all'", "'varying'"]),
    "dynamic_slice-negative": (lambda: fg.lax.dynamic_slice(X, (-1,), (2,), allow_negative_indices=False),
                               fg.ShapeError, ["dynamic_slice", "start index -1", "allow_negative_indices=False"]),
    "dynamic_slice-negative-axis": (lambda: fg.lax.dynamic_slice(M, (0, np.int32(-2)), (1, 1),
                                                                 allow_negative_indices=(True, False)),
                                    fg.ShapeError, ["dynamic_slice", "-2", "axis 1 of size 2"]),
    "dynamic_slice-allow": (lambda: fg.lax.dynamic_slice(M, (0, 0), (1, 1), allow_negative_indices=[False]),
                            fg.TraceError, ["dynamic_slice", "one per axis"]),
    "dynamic_update_slice-negative": (lambda: fg.lax.dynamic_update_slice(X, X[:1], (-4,),
                                                                          allow_negative_indices=False),
                                      fg.ShapeError, ["dynamic_update_slice", "start index -4"]),
    "dynamic_slice_in_dim-allow": (lambda: fg.lax.dynamic_slice_in_dim(X, 0, 2, allow_negative_indices="no"),
                                   fg.TraceError, ["dynamic_slice_in_dim", "allow_negative_indices", "'no'"]),
    "dynamic_slice_in_dim-negative": (lambda: fg.lax.dynamic_slice_in_dim(X, -1, 2, allow_negative_indices=False),
                                      fg.ShapeError, ["dynamic_slice_in_dim", "start index -1"]),
    **{f"{name}-accuracy": (lambda name=name: getattr(fg.lax, name)(X, accuracy="high"), fg.InputError,
                            [f"{name}: accuracy='high'", "fg.lax.AccuracyMode"]) for name in LAX_ACCURATE},
    "exp-tolerance": (lambda: fg.lax.exp(X, accuracy=jax.lax.Tolerance(atol=1e-3)), fg.InputError,
                      ["exp: accuracy=", "cannot check a tolerance"]),
}


def total(x, *rest):
    """A function for the refusals, which never call it (a branch of cond and switch too)."""
    return fg.sum(x)


@pytest.mark.parametrize("case", REFUSED)
def test_refused_with_the_function_the_value_and_the_line(case):
    call, error, words = REFUSED[case]
    with pytest.raises(error) as e:
        call()
    message = str(e.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    if not case.endswith("-accuracy"):  # those lambdas are built in a comprehension, whose line is the dict's
        assert e.value.site == f"test_jax_keywords.py:{call.__code__.co_firstlineno}", message


# -- grad, value_and_grad, jacrev: allow_int ---------------------------------------------------------


def scaled(x, n):
    return (x * n).sum()


def test_grad_allow_int_gives_float0_zeros_eagerly_traced_and_compiled():
    want = jax_(jax.grad(scaled, argnums=(0, 1), allow_int=True), X, N)
    assert want[1].dtype == FLOAT0
    ours = fg.grad(scaled, argnums=(0, 1), allow_int=True)
    check(ours(X, N), want, "eager")
    check(fg.jit(ours)(X, N), want, "compiled")
    check(fg.jit(lambda x, n: ours(x, n))(X, N), want, "traced inside jit")
    check(fg.grad(scaled, argnums=(0, 1), allow_int=True)(X, 3),
          jax_(jax.grad(scaled, argnums=(0, 1), allow_int=True), X, 3), "a Python int")
    tree = {"w": X, "n": N, "b": N > 0}
    loss = lambda t: (t["w"] * t["n"]).sum() + t["b"].sum()  # noqa: E731
    check(fg.value_and_grad(loss, allow_int=True)(tree), jax_(jax.value_and_grad(loss, allow_int=True), tree),
          "value_and_grad of a pytree with int and bool leaves")


def test_grad_allow_int_under_vmap_batches_the_float0_zeros():
    ns = np.stack([N, N + 1, N - 1])
    want = jax_(jax.vmap(jax.grad(scaled, argnums=(0, 1), allow_int=True), in_axes=(None, 0)), X, ns)
    got = fg.vmap(fg.grad(scaled, argnums=(0, 1), allow_int=True), in_axes=(None, 0))(X, ns)
    check(got, want, "vmap")
    want = jax_(jax.vmap(jax.grad(scaled, argnums=(0, 1), allow_int=True), in_axes=(None, 0), out_axes=1), X, ns)
    got = fg.vmap(fg.grad(scaled, argnums=(0, 1), allow_int=True), in_axes=(None, 0), out_axes=1)(X, ns)
    check(got, want, "vmap, out_axes=1")


def test_jacrev_allow_int_gives_zero_jacobians_of_the_input_dtype():
    f = lambda x, n: x * n  # noqa: E731
    for ours, theirs in ((fg.jacrev, jax.jacrev), (fg.jacobian, jax.jacobian)):
        want = jax_(theirs(f, argnums=(0, 1), allow_int=True), X, N)
        check(ours(f, argnums=(0, 1), allow_int=True)(X, N), want, ours.__name__)
    check(fg.jit(fg.jacrev(f, argnums=(0, 1), allow_int=True))(X, N), want, "compiled")


def test_jvp_vjp_and_linearize_take_float0_for_integer_primals():
    f = lambda x, n: x * n  # noqa: E731
    zero = np.zeros((), FLOAT0)
    check(fg.jvp(f, (X, np.int32(2)), (X, zero)), jax_(jax.jvp, f, (X, np.int32(2)), (X, zero)), "jvp")
    g = lambda x: (x * 2, (x * 3).astype(np.int32))  # noqa: E731
    ct = (X, np.zeros(4, FLOAT0))
    check(fg.vjp(g, X)[1](ct), jax_(lambda: jax.vjp(g, X)[1](ct)), "vjp")
    check(fg.linearize(f, X, np.int32(2))[1](X, zero), jax_(lambda: jax.linearize(f, X, np.int32(2))[1](X, zero)),
          "linearize")


# -- linearize, make_jaxpr, checkpoint ----------------------------------------------------------------


def test_linearize_has_aux():
    f = lambda x: (jnp.sin(x) * x, {"c": jnp.cos(x).sum()})  # noqa: E731
    ours = lambda x: (fg.sin(x) * x, {"c": fg.cos(x).sum()})  # noqa: E731
    out, f_jvp, aux = fg.linearize(ours, X, has_aux=True)
    want_out, want_jvp, want_aux = jax.linearize(f, X, has_aux=True)
    check((out, aux), jax_(lambda: (want_out, want_aux)), "primal and aux")
    t = D.f32(4)
    check(f_jvp(t), jax_(want_jvp, t), "f_jvp")
    check(fg.jit(f_jvp)(t), jax_(want_jvp, t), "f_jvp compiled")
    with pytest.raises(fg.ShapeError, match="linearize: has_aux=True needs the function to return a pair"):
        fg.linearize(lambda x: x, X, has_aux=True)


def test_make_jaxpr_return_shape_and_axis_env():
    f = lambda x, n: (x * n, {"s": (x > 0).sum()})  # noqa: E731
    graph, shapes = fg.make_jaxpr(f, static_argnums=1, return_shape=True)(M, 3)
    _, want = jax.make_jaxpr(f, static_argnums=1, return_shape=True)(M, 3)
    assert isinstance(graph, fg.Graph)
    got_leaves, want_leaves = jax.tree_util.tree_leaves(shapes), jax.tree_util.tree_leaves(want)
    assert jax.tree_util.tree_structure(shapes) == jax.tree_util.tree_structure(want)
    assert [(s.shape, s.dtype.np) for s in got_leaves] == [(w.shape, w.dtype) for w in want_leaves]

    def g(lax):
        return lambda x: lax.psum(x, "i") + x * lax.axis_size("i") + lax.axis_size("j")

    env = [("i", 4), ("j", 3)]
    graph = fg.make_jaxpr(g(fg.lax), axis_env=env)(X)
    closed = jax.make_jaxpr(g(jax.lax), axis_env=env)(X)
    assert "psum[axis_names=('i',)]" in str(graph) and "psum" in str(closed)
    # a vmap inside binds its own axis; the environment's size is read as a number: the graph runs
    def h(lib, lax):
        return lambda xs: lib.vmap(lambda x: lax.psum(x, "i") * lax.axis_size("j"), axis_name="i")(xs)

    batched = D.f32(5, 4)
    got = fg.interpret(fg.make_jaxpr(h(fg, fg.lax), axis_env=[("j", 3)])(batched), batched)
    closed = jax.make_jaxpr(h(jax, jax.lax), axis_env=[("j", 3)])(batched)
    want = jax_(jax.core.eval_jaxpr, closed.jaxpr, closed.consts, batched)
    check(got, want, "axis_env beside a vmap's axis")


def test_checkpoint_static_argnames_and_concrete():
    def f(x, *, n):
        return (x * n).sum() if n > 2 else x.sum()  # Python reads n: it must be static

    ours = fg.checkpoint(f, static_argnames="n")
    theirs = jax.checkpoint(lambda x, n: f(x, n=n), static_argnums=1)  # JAX 0.10 traces static_argnames
    for n in (3, 1):
        want = jax_(jax.value_and_grad(lambda x: theirs(x, n)), X)
        check(fg.value_and_grad(lambda x: ours(x, n=n))(X), want, f"n={n}")
    check(fg.jit(fg.grad(lambda x: ours(x, n=3)))(X), jax_(jax.grad(lambda x: theirs(x, 3)), X), "compiled")
    check(fg.grad(lambda x: fg.remat(f, static_argnames=("n",), concrete=False)(x, n=4))(X),
          jax_(jax.grad(lambda x: theirs(x, 4)), X), "remat, concrete=False")


# -- jit and device_put: one device ------------------------------------------------------------------


def test_jit_keywords_as_far_as_one_device_gives_them_a_meaning():
    f = lambda x, n: jnp.sin(x) * n  # noqa: E731
    ours = lambda x, n: fg.sin(x) * n  # noqa: E731
    want = jax_(jax.jit(static_argnums=1)(f), X, 3)
    decorated = fg.jit(static_argnums=1)(ours)  # without the function: a decorator, as JAX's
    check(decorated(X, 3), want, "decorator")
    assert isinstance(decorated(X, 3), fg.Array)
    device, backend = fg.local_devices()[0], fg.default_backend()
    options = dict(in_shardings=None, out_shardings=None, keep_unused=True, inline=True, compiler_options={})
    for placed in (dict(device=device), dict(backend=backend), {}):
        jitted = fg.jit(ours, static_argnums=1, **placed, **options)
        check(jitted(X, 3), want, f"jit({placed})")
        assert jitted(X, 3).device is device
        check(jitted.lower(X, 3).compile()(X), want, "lowered and compiled")
    kept = fg.jit(lambda x, unused: x * 2, keep_unused=False).lower(X, M)
    assert len(kept.graph.inputs) == 2  # every argument stays an input, as keep_unused=True keeps them


def test_device_put_device_src_donate_may_alias():
    device = fg.local_devices()[0]
    tree = {"x": X, "n": N, "s": 2.0}
    put = fg.device_put(tree, device, src=device)
    check(put, jax_(jax.device_put, tree, jax.devices()[0]), "values")
    assert all(isinstance(v, fg.Array) for v in put.values())
    a = put["x"]
    assert fg.device_put(a) is a and fg.device_put(a, may_alias=True) is a  # JAX's default: may alias
    copy = fg.device_put(a, may_alias=False)
    assert copy is not a and copy.buffer is not a.buffer
    check(copy, X, "copy")
    b, c = fg.device_put((a, copy), donate=(True, False), may_alias=(False, None))
    assert b.buffer is a.buffer and c is copy  # donated: the buffer changes hands, not copied
    check(b, X, "donated")
    with pytest.raises(fg.InputError, match="donated to device_put at test_jax_keywords.py"):
        np.asarray(a)
    prefix = fg.device_put({"x": X, "n": N}, {"x": device, "n": None})
    check(prefix, {"x": X, "n": N}, "a prefix of devices")


# -- vmap's sum_match; cond and switch's operand -------------------------------------------------------


def test_vmap_sum_match_sums_the_mapped_outputs_whose_out_axes_is_none():
    def make(lib):
        return lib.vmap(lambda x, y: (x * y, (x * y).sum(), y), in_axes=(0, None), out_axes=(0, None, None),
                        sum_match=True)

    y = D.f32(2)
    want = jax_(make(jax), M, y)
    check(make(fg)(M, y), want, "eager")
    check(fg.jit(make(fg))(M, y), want, "compiled")
    ints = np.arange(6, dtype=np.int32).reshape(3, 2)
    check(fg.vmap(lambda n: n * 2, out_axes=None, sum_match=True)(ints),
          jax_(jax.vmap(lambda n: n * 2, out_axes=None, sum_match=True), ints), "integers")


def test_cond_and_switch_take_the_single_operand_keyword():
    def make(lax):
        return lambda p, i, x: (lax.cond(p, lambda v: v + 1, lambda v: v * 2, operand=x),
                                lax.switch(i, [lambda v: v[0] - v[1], lambda v: v[0] * v[1]], operand=(x, x + 1)))

    for p, i in ((True, 0), (False, 1)):
        want = jax_(make(jax.lax), p, i, X)
        check(make(fg.lax)(p, i, X), want, f"eager {p} {i}")
        check(fg.jit(make(fg.lax))(p, i, X), want, f"compiled {p} {i}")


# -- jax.lax: all_gather's to, dynamic slicing's allow_negative_indices, accuracy ----------------------


def test_all_gather_to_varying():
    def make(lib, lax):
        return lib.vmap(lambda v: lax.all_gather(v, "i", to="varying", axis=1), axis_name="i")

    check(make(fg, fg.lax)(M), jax_(make(jax, jax.lax), M), "all_gather")


SLICES = {  # name: (function of lax, operand, starts, allow_negative_indices)
    "slice-all": (lambda lax, x, s, a: lax.dynamic_slice(x, s, (2, 1), allow_negative_indices=a), M, (-1, -1), False),
    "slice-per-axis": (lambda lax, x, s, a: lax.dynamic_slice(x, s, (2, 1), allow_negative_indices=a), M, (-1, -1),
                       [True, False]),
    "slice-allowed": (lambda lax, x, s, a: lax.dynamic_slice(x, s, (2, 1), allow_negative_indices=a), M, (-3, -1),
                      True),
    "update": (lambda lax, x, s, a: lax.dynamic_update_slice(x, x[:1] * 0, s, allow_negative_indices=a), M, (-2, 0),
               (False, True)),
    "slice_in_dim": (lambda lax, x, s, a: lax.dynamic_slice_in_dim(x, s[0], 2, allow_negative_indices=a), X, (-1,),
                     False),
    "update_slice_in_dim": (lambda lax, x, s, a: lax.dynamic_update_slice_in_dim(x, x[:2] + 1, s[0], 0,
                                                                                   allow_negative_indices=a),
                            X, (-1,), False),
}


@pytest.mark.parametrize("name", SLICES)
def test_negative_starts_clamp_to_zero_where_not_allowed(name):
    op, x, starts, allow = SLICES[name]
    starts = tuple(np.int32(s) for s in starts)  # traced in JAX's jit: clamped, not refused

    def run(lax, jit):
        return jit(lambda x, *s: op(lax, x, s, allow))(x, *starts)

    want = jax_(run, jax.lax, jax.jit)
    check(run(fg.lax, fg.jit), want, "compiled")
    check(op(fg.lax, x, tuple(np.asarray(s) for s in starts), allow), want, "eager, 0-d arrays")


def test_starts_as_one_array():
    starts = np.array([-1, -1], np.int32)
    for allow in (False, (False, True), True):
        want = jax_(jax.jit(lambda x, s: jax.lax.dynamic_slice(x, s, (2, 1), allow_negative_indices=allow)), M, starts)
        check(fg.lax.dynamic_slice(M, starts, (2, 1), allow_negative_indices=allow), want, f"eager {allow}")
        check(fg.jit(lambda x, s: fg.lax.dynamic_slice(x, s, (2, 1), allow_negative_indices=allow))(M, starts), want,
              f"compiled {allow}")


@pytest.mark.parametrize("name", LAX_ACCURATE)
def test_accuracy_modes_run_the_one_implementation(name):
    x = D.f32(5, lo=0.1, hi=1.5)
    want = jax_(getattr(jax.lax, name), x, accuracy=jax.lax.AccuracyMode.HIGHEST)
    for accuracy in (None, fg.lax.AccuracyMode.HIGHEST, fg.lax.AccuracyMode.DEFAULT):
        check(getattr(fg.lax, name)(x, accuracy=accuracy), want, f"{name} {accuracy}")
