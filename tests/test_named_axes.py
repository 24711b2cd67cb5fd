"""Collectives over a named vmap axis (`fg.vmap(f, axis_name=...)` with `fg.lax.psum`, `pmean`,
`pmax`, `pmin`, `all_gather`, `axis_index`, `axis_size`) against JAX's, eagerly and compiled, nested,
inside loops, and differentiated. The collectives' primitives never stand in a graph outside the
vmap naming their axis (its replay computes them), so their op-table row is this file."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

D = Draws(7)
X = D.f32(4, 3)


def both(make, *args, rtol=2e-5):
    """make(lib, lax) built with fgrad and with JAX, run eagerly and compiled, compared."""
    want = jax.jit(make(jax, jax.lax))(*args)
    ours = make(fg, fg.lax)
    for got, how in ((ours(*args), "eager"), (fg.jit(ours)(*args), "compiled")):
        same([np.asarray(v) for v in jax.tree_util.tree_leaves(got)],
             [np.asarray(v) for v in jax.tree_util.tree_leaves(want)], how, rtol=rtol, oracle="jax.lax")


CASES = {
    "psum": lambda lib, lax: lib.vmap(lambda y: lax.psum(y, "b"), axis_name="b"),
    "psum-pytree": lambda lib, lax: lib.vmap(lambda y: lax.psum({"a": y, "n": y.sum()}, "b"), axis_name="b"),
    "pmean-centred": lambda lib, lax: lib.vmap(lambda y: y - lax.pmean(y, "b"), axis_name="b"),
    "pmax": lambda lib, lax: lib.vmap(lambda y: lax.pmax(y, "b") * y, axis_name="b"),
    "pmin": lambda lib, lax: lib.vmap(lambda y: lax.pmin(y.sum(), "b"), axis_name="b"),
    "all_gather": lambda lib, lax: lib.vmap(lambda y: lax.all_gather(y, "b") @ y, axis_name="b"),
    "all_gather-axis1": lambda lib, lax: lib.vmap(lambda y: lax.all_gather(y, "b", axis=1), axis_name="b"),
    "all_gather-tiled": lambda lib, lax: lib.vmap(lambda y: lax.all_gather(y, "b", tiled=True), axis_name="b"),
    "all_gather-tiled-last": lambda lib, lax: lib.vmap(lambda y: lax.all_gather(y[None], "b", axis=-1, tiled=True),
                                                       axis_name="b"),
    "ppermute": lambda lib, lax: lib.vmap(lambda y: lax.ppermute(y, "b", [(0, 1), (1, 2), (2, 3), (3, 0)]) * y,
                                          axis_name="b"),
    "psum_scatter": lambda lib, lax: lib.vmap(lambda y: lax.psum_scatter(y[0] * lax.iota(np.float32, 4), "b"),
                                              axis_name="b"),
    "psum_scatter-tiled": lambda lib, lax: lib.vmap(
        lambda y: lax.psum_scatter(lax.broadcast(y, (8,)), "b", scatter_dimension=0, tiled=True), axis_name="b"),
    "psum_scatter-last": lambda lib, lax: lib.vmap(
        lambda y: lax.psum_scatter(lax.broadcast_in_dim(y, (3, 4), (0,)), "b", scatter_dimension=1), axis_name="b"),
    "all_to_all": lambda lib, lax: lib.vmap(lambda y: lax.all_to_all(lax.broadcast(y, (4,)), "b", 0, 1),
                                            axis_name="b"),
    "all_to_all-same-axis": lambda lib, lax: lib.vmap(
        lambda y: lax.all_to_all(lax.broadcast_in_dim(y, (3, 4), (0,)) * lax.iota(np.float32, 4), "b", 1, 1),
        axis_name="b"),
    "all_to_all-tiled": lambda lib, lax: lib.vmap(
        lambda y: lax.all_to_all(lax.broadcast_in_dim(y, (3, 8), (0,)) * lax.iota(np.float32, 8), "b", 1, 0,
                                 tiled=True), axis_name="b"),
    "axis_index": lambda lib, lax: lib.vmap(lambda y: y * lax.axis_index("b"), axis_name="b"),
    "axis_size": lambda lib, lax: lib.vmap(lambda y: y / lax.axis_size("b"), axis_name="b"),
    "unmapped-operand": lambda lib, lax: lib.vmap(lambda y, c: lax.psum(c, "b") + y, in_axes=(0, None),
                                                  axis_name="b"),
    "constant": lambda lib, lax: lib.vmap(lambda y: lax.psum(1, "b") * y, axis_name="b"),
    "batch-norm": lambda lib, lax: lib.vmap(
        lambda y: (y - lax.pmean(y, "b")) * jax.lax.rsqrt(lax.pmean((y - lax.pmean(y, "b")) ** 2, "b") + 1e-5)
        if lib is jax else (y - lax.pmean(y, "b")) * fg.lax.rsqrt(lax.pmean((y - lax.pmean(y, "b")) ** 2, "b") + 1e-5),
        axis_name="b"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_collectives_as_jax(name):
    make = CASES[name]
    args = (X, np.float32(2.0)) if name == "unmapped-operand" else (X,)
    both(lambda lib, lax: make(lib, lax), *args)


def test_integers_and_bools_as_jax():
    ints = np.arange(5, dtype=np.int32)
    both(lambda lib, lax: lib.vmap(lambda y: (lax.psum(y, "b"), lax.pmean(y, "b"), lax.psum(y > 1, "b")),
                                   axis_name="b"), ints)


def test_nested_vmaps_name_their_own_axes():
    x = D.f32(2, 3, 4)
    for names in ("i", "j", ("i", "j"), ("j", "i")):
        both(lambda lib, lax: lib.vmap(lib.vmap(lambda y: lax.psum(y, names) * lax.axis_index("j"), axis_name="j"),
                                       axis_name="i"), x)
    both(lambda lib, lax: lib.vmap(lib.vmap(lambda y: lax.all_gather(y, "i"), axis_name="j"), axis_name="i"), x)
    # An unnamed vmap inside a named one maps through its collectives.
    both(lambda lib, lax: lib.vmap(lib.vmap(lambda y: lax.pmean(y, "i")), axis_name="i"), x)


def test_collectives_inside_loops_and_branches():
    def make(lib, lax):
        def per_example(y):
            def body(c, v):
                return c + lax.psum(v * c, "b"), lax.pmax(v, "b")
            c, ys = lax.scan(body, 1.0, y)
            return lax.cond(lax.axis_index("b") % 2 == 0, lambda: c + ys.sum(), lambda: c - lax.psum(c, "b"))
        return lib.vmap(per_example, axis_name="b")

    both(make, X, rtol=1e-4)


@pytest.mark.parametrize("how", ["grad of vmap", "vmap of grad", "jvp"])
def test_derivatives_as_jax(how):
    def loss(lib, lax, y):
        centred = y - lax.pmean(y, "b")
        moved = lax.ppermute(y, "b", [(0, 1), (1, 2), (2, 3), (3, 0)])
        scattered = lax.psum_scatter(lax.broadcast_in_dim(y, (3, 4), (0,)) * moved[:, None], "b", scatter_dimension=1)
        return (lax.psum(centred ** 2, "b") * y).sum() + (lax.all_gather(y, "b") * y).sum() + (scattered * y).sum()

    def make(lib, lax):
        per = lambda y: loss(lib, lax, y)  # noqa: E731
        if how == "grad of vmap":
            return lib.grad(lambda x: lib.vmap(per, axis_name="b")(x).sum())
        if how == "vmap of grad":
            return lib.vmap(lib.grad(per), axis_name="b")
        return lambda x: lib.jvp(lib.vmap(per, axis_name="b"), (x,), (x * 0.5,))

    both(make, X, rtol=1e-4)


@pytest.mark.parametrize("tiled", [False, True])
def test_all_to_all_differentiates(tiled):
    """(JAX's own transpose of all_to_all under vmap fails its shape check: finite differences here.)"""
    def per_example(y):
        wide = fg.lax.broadcast_in_dim(y, (3, 8 if tiled else 4), (0,))
        moved = fg.lax.all_to_all(wide * fg.lax.iota(np.float32, wide.shape[1]), "b", 1, 0, tiled=tiled)
        return fg.sum(fg.sin(moved) * fg.lax.axis_index("b"))

    fg.check_grads(lambda x: fg.sum(fg.vmap(per_example, axis_name="b")(x)), (X,), order=1)
    fg.check_grads(lambda x: fg.sum(fg.vmap(fg.grad(per_example), axis_name="b")(x) ** 2), (X,), order=1)


def test_an_axis_named_by_an_int_leaves_reductions_alone():
    """A vmap's name is any hashable, an int too: a reduction's own axes are not a collective's names."""
    ones = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(fg.vmap(lambda y: fg.sum(ones, axis=0) + y, axis_name=0)(X), X + 2.0)


def test_misuse_is_named():
    with pytest.raises(fg.AxisNameError, match=r"psum: unbound axis name 'b'.*test_named_axes.py"):
        fg.lax.psum(X, "b")
    with pytest.raises(NameError):  # as JAX's
        fg.vmap(lambda y: fg.lax.pmean(y, "c"), axis_name="b")(X)
    with pytest.raises(fg.AxisNameError, match="axis_index: unbound axis name"):
        fg.jit(lambda x: x + fg.lax.axis_index("b"))(X)
    with pytest.raises(fg.MissingRule, match="pmax: no derivative"):  # (a grad of the vmap differentiates its max)
        fg.vmap(fg.grad(lambda y: fg.lax.pmax(y, "b").sum()), axis_name="b")(X)
    with pytest.raises(fg.InputError, match="axis_index_groups"):
        fg.vmap(lambda y: fg.lax.psum(y, "b", axis_index_groups=[[0, 1]]), axis_name="b")(X)
    with pytest.raises(fg.InputError, match=r"ppermute: perm \(\(0, 1\), \(1, 1\)\) must pair distinct sources"):
        fg.vmap(lambda y: fg.lax.ppermute(y, "b", [(0, 1), (1, 1)]), axis_name="b")(X)
    with pytest.raises(fg.InputError, match="ppermute: perm must be"):
        fg.vmap(lambda y: fg.lax.ppermute(y, "b", [0, 1]), axis_name="b")(X)
    with pytest.raises(fg.ShapeError, match=r"psum_scatter: axis 0 of f32\[3\] must have the axis's size, 4"):
        fg.vmap(lambda y: fg.lax.psum_scatter(y, "b"), axis_name="b")(X)
    with pytest.raises(fg.InputError, match="axis_name must be hashable"):
        fg.vmap(lambda y: y, axis_name=["b"])
    with pytest.raises(fg.InputError, match="all_gather: axis must be an int"):
        fg.vmap(lambda y: fg.lax.all_gather(y, "b", axis="0"), axis_name="b")(X)
    with pytest.raises(fg.ShapeError, match="all_gather: axis 3 is out of range"):
        fg.vmap(lambda y: fg.lax.all_gather(y, "b", axis=3), axis_name="b")(X)



# (the example function over lax, pmap's keywords, the arguments): pmap against JAX's vmap naming
# the axis, which computes the same values on any number of examples.
PMAPPED = {
    "psum": (lambda lax: lambda y: y / lax.psum(y, "i"), {}, (X,)),
    "in_axes": (lambda lax: lambda y, w: y @ w + lax.axis_index("i"), {"in_axes": (0, None)}, (X, D.f32(3, 2))),
    "out_axes": (lambda lax: lambda y: lax.all_gather(y, "i"), {"out_axes": 1}, (X,)),
    "keyword": (lambda lax: lambda y, z=None: y * z - lax.pmax(z, "i"), {}, (X,)),
}


@pytest.mark.parametrize("name", PMAPPED)
def test_pmap_is_jax_s_vmap_naming_the_axis(name):
    make, kwargs, args = PMAPPED[name]
    named = {"z": X + 1} if name == "keyword" else {}
    want = jax.vmap(make(jax.lax), axis_name="i", **kwargs)(*args, **named)
    got = fg.pmap(make(fg.lax), "i", **kwargs)(*args, **named)
    assert isinstance(got, fg.Array)  # compiled
    same([np.asarray(got)], [np.asarray(want)], name, oracle="jax.vmap")
    one = jax.pmap(make(jax.lax), "i", **kwargs)(*(a[:1] if k == 0 else a for k, a in enumerate(args)),
                                                  **{k: v[:1] for k, v in named.items()})
    same([np.asarray(fg.pmap(make(fg.lax), "i", **kwargs)(*(a[:1] if k == 0 else a for k, a in enumerate(args)),
                                                           **{k: v[:1] for k, v in named.items()}))],
         [np.asarray(one)], name, oracle="jax.pmap")


def test_pmap_passes_static_arguments_and_refuses_other_devices():
    f = fg.pmap(lambda y, n, w: y * n + w, static_broadcasted_argnums=1, in_axes=(0, None, None))
    w = D.f32(3)
    np.testing.assert_allclose(np.asarray(f(X, 3, w)), X * 3 + w, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(f(X, 4, w)), X * 4 + w, rtol=1e-6)
    with pytest.raises(fg.InputError, match=r"pmap: devices must be a list of fg.local_devices\(\)"):
        fg.pmap(lambda y: y, devices=["tpu:0"])
    with pytest.raises(fg.InputError, match="pmap: backend 'tpu' is not this one"):
        fg.pmap(lambda y: y, backend="tpu")
    with pytest.raises(fg.InputError, match="static_broadcasted_argnums must be ints"):
        fg.pmap(lambda y: y, static_broadcasted_argnums="n")


@pytest.mark.parametrize("collective", ["psum", "pmean", "pmax", "all_gather"])
def test_a_collective_s_result_is_the_same_in_every_example(collective):
    """It may be an out_axes=None output, and sum_match leaves it alone, as JAX's."""
    def make(lax):
        return lambda y: getattr(lax, collective)(y, "i")

    want = jax.vmap(make(jax.lax), axis_name="i", out_axes=None)(X)
    for kwargs in ({}, {"sum_match": True}):
        same([np.asarray(fg.vmap(make(fg.lax), axis_name="i", out_axes=None, **kwargs)(X))], [np.asarray(want)],
             f"{collective} {kwargs}", oracle="jax.vmap")
    same([np.asarray(fg.pmap(make(fg.lax), "i", out_axes=None)(X))], [np.asarray(want)], "pmap", oracle="jax.vmap")
    mapped = jax.vmap(lambda y: y * 2.0, out_axes=None, sum_match=True)(X)
    same([np.asarray(fg.vmap(lambda y: y * 2.0, out_axes=None, sum_match=True)(X))], [np.asarray(mapped)],
         "sum_match of a mapped output", oracle="jax.vmap")


def test_a_graph_holding_an_unbound_collective_is_refused_at_its_line():
    g = fg.make_jaxpr(lambda a: fg.lax.psum(a, "i"), axis_env=[("i", 4)])(X)
    with pytest.raises(fg.AxisNameError, match=r"psum: unbound axis name 'i'.* at test_named_axes.py:\d+"):
        fg.compile(g)
    with pytest.raises(fg.AxisNameError, match=r"psum: unbound axis name 'i'.* at test_named_axes.py:\d+"):
        fg.interpret(g, X)
