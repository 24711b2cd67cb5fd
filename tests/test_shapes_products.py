"""Creation, shape functions and products beyond the op table's rows: what their graphs are made
of, and the mistakes each refuses, naming the function, the shapes and the user's line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import fgrad as fg

T = fg.dim("T", 8)
X = np.ones((3, 4), np.float32)


def ops(graph: fg.Graph) -> list[str]:
    return [node.op for node in graph.nodes]


# -- what the graphs hold --------------------------------------------------------------


def test_a_uniform_fill_is_one_element_however_large() -> None:
    graph = fg.trace(lambda: fg.add(fg.zeros((512, 512)), fg.full((512, 512), 3, dtype="f32")))
    constants = [node.attrs["value"] for node in graph.nodes if node.op == "constant"]
    assert constants and all(len(c.data) == 4 for c in constants)


def test_eye_tri_arange_and_linspace_count_with_iota_not_arrays() -> None:
    graph = fg.trace(lambda: fg.eye(64) + fg.tri(64) + fg.arange(0, 6.4, 0.1)[:64] + fg.linspace(0, 1, 64))
    assert "iota" in ops(graph)
    assert all(node.spec.shape == () or len(node.attrs["value"].data) == node.spec.dtype.itemsize
               for node in graph.nodes if node.op == "constant")


def test_creation_outside_a_trace_gives_writable_numpy_arrays() -> None:
    z = fg.zeros((2, 3), "i32")
    assert isinstance(z, np.ndarray) and z.dtype == np.int32 and z.flags.writeable
    assert isinstance(fg.eye(3), np.ndarray) and fg.eye(3).dtype == np.float32


def test_arange_is_start_plus_step_times_iota_as_jax() -> None:
    np.testing.assert_array_equal(fg.arange(0, 1, 0.1), np.float32(0.1) * np.arange(10, dtype=np.float32))
    f32_values = np.float32(1) + np.float32(0.1) * np.arange(10, dtype=np.float32)
    np.testing.assert_array_equal(fg.arange(1, 2, 0.1, dtype="f16"), f32_values.astype(np.float16))


def test_linspace_hits_both_ends_exactly() -> None:
    out = fg.linspace(0.1, 0.7, 7)
    assert out[0] == np.float32(0.1) and out[-1] == np.float32(0.7)


def test_zeros_over_a_symbolic_shape_broadcasts_one_element() -> None:
    graph = fg.trace(lambda x: fg.add(x, fg.zeros((x.shape[0], 4), "f32")), fg.spec((T, 4)))
    assert "broadcast_to" in ops(graph)
    np.testing.assert_array_equal(fg.interpret(graph, np.ones((5, 4), np.float32)), np.ones((5, 4)))


@pytest.mark.parametrize("subscripts, shapes, matmuls", [
    ("ij,jk->ik", [(2, 3), (3, 4)], 1),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], 1),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)], 1),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)], 1),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 5)], 2),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 6)], 3),
    ("i,j->ij", [(2,), (3,)], 0),  # nothing summed: a broadcast product
])
def test_einsum_is_one_batched_matmul_per_contraction(subscripts: str, shapes: list[tuple[int, ...]],
                                                      matmuls: int) -> None:
    graph = fg.trace(lambda *xs: fg.einsum(subscripts, *xs), *[fg.spec(s) for s in shapes])
    assert ops(graph).count("matmul") == matmuls, str(graph)


def test_einsum_contracts_the_cheapest_pair_first() -> None:
    """(64, 64) @ (64, 64) @ (64,): the matrix-vector product first keeps both products small."""
    graph = fg.trace(lambda a, b, v: fg.einsum("ij,jk,k->i", a, b, v), fg.spec((64, 64)), fg.spec((64, 64)),
                     fg.spec((64,)))
    first = next(node for node in graph.nodes if node.op == "matmul")
    assert first.spec.shape != (64, 64), str(graph)


@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk,k->i", [(64, 64), (64, 64), (64,)]),
    ("ab,bc,cd,de->ae", [(2, 30), (30, 4), (4, 50), (50, 3)]),
    ("...ij,...jk,kl", [(2, 5, 3, 3), (3, 4), (4, 2)]),
    ("ii->i", [(3, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
])
def test_einsum_path_is_the_order_einsum_takes(subscripts: str, shapes: list[tuple[int, ...]]) -> None:
    """einsum_path gives the steps einsum contracts in (given them, einsum traces the same graph), its
    description a line a step; einsum follows a path JAX gives too, to NumPy's values."""
    import jax.numpy as jnp

    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    path, description = fg.numpy.einsum_path(subscripts, *xs)
    assert description.startswith(f"  Complete contraction:  {subscripts}\n")
    assert len(path) == max(len(xs) - 1, 1) and len(description.splitlines()) == 2 + len(path)
    specs = [fg.spec(s) for s in shapes]
    assert fg.numpy.einsum_path(subscripts, *specs)[0] == path  # shapes are enough
    default = fg.trace(lambda *v: fg.einsum(subscripts, *v), *specs)
    assert default == fg.trace(lambda *v: fg.einsum(subscripts, *v, optimize=path), *specs)
    want = np.einsum(subscripts, *(x.astype(np.float64) for x in xs))
    for given in (path, jnp.einsum_path(subscripts, *xs)[0]):
        got = fg.einsum(subscripts, *xs, optimize=given)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        assert fg.numpy.einsum_path(subscripts, *xs, optimize=given)[0] == [tuple(step) for step in given]
    with pytest.raises(fg.ShapeError, match="einsum: path step .* names operands outside"):
        fg.numpy.einsum_path(subscripts, *xs, optimize=[(0, len(xs))])


def test_two_dimensional_products_add_no_transposes_or_reshapes() -> None:
    for fn in (fg.dot, fg.matmul, lambda a, b: fg.einsum("ij,jk", a, b), lambda a, b: fg.tensordot(a, b, 1)):
        assert ops(fg.trace(fn, fg.spec((2, 3)), fg.spec((3, 4)))) == ["input", "input", "matmul"]


# -- mistakes ----------------------------------------------------------------------------


MISTAKES: dict[str, tuple[Callable[[], Any], type, list[str]]] = {
    "zeros-negative": (lambda: fg.zeros((2, -1)), fg.ShapeError, ["zeros", "negative", "(2, -1)"]),
    "zeros-symbol-eagerly": (lambda: fg.zeros((T, 2)), fg.ShapeError, ["zeros", "symbol T", "traced"]),
    "ones-complex": (lambda: fg.ones(3, "complex64"), fg.DTypeError, ["ones", "complex64"]),
    "eye-float-size": (lambda: fg.eye(2.5), fg.ShapeError, ["eye", "N", "2.5"]),
    "arange-step-zero": (lambda: fg.arange(0, 1, 0), fg.ShapeError, ["arange", "step", "zero"]),
    "arange-bool": (lambda: fg.arange(5, dtype=bool), fg.DTypeError, ["arange", "bool"]),
    "linspace-bounds": (lambda: fg.linspace(np.ones(2), np.ones(3), 3), fg.ShapeError, ["linspace", "(2,)", "(3,)"]),
    "split-unequal": (lambda: fg.split(X, 3, axis=1), fg.ShapeError, ["split", "(3, 4)", "3 equal pieces"]),
    "split-decreasing": (lambda: fg.split(X, [3, 1], axis=-1), fg.ShapeError, ["split", "[3, 1]", "(3, 4)"]),
    "vsplit-1d": (lambda: fg.vsplit(np.ones(3), 3), fg.ShapeError, ["vsplit", "2 axes", "(3,)"]),
    "tril-1d": (lambda: fg.tril(np.ones(3)), fg.ShapeError, ["tril", "2 axes", "(3,)"]),
    "repeat-negative": (lambda: fg.repeat(X, -1), fg.ShapeError, ["repeat", "negative", "-1"]),
    "repeat-counts": (lambda: fg.repeat(X, [1, 2], axis=0), fg.ShapeError, ["repeat", "2 repeats", "(3, 4)"]),
    "repeat-axis": (lambda: fg.repeat(X, 2, axis=-3), fg.ShapeError, ["repeat", "axis -3", "(3, 4)"]),
    "swapaxes-axis": (lambda: fg.swapaxes(X, 0, 2), fg.ShapeError, ["swapaxes", "axis 2", "(3, 4)"]),
    "moveaxis-counts": (lambda: fg.moveaxis(X, (0, 1), 0), fg.ShapeError, ["moveaxis", "(0, 1)", "as many"]),
    "diagonal-same-axes": (lambda: fg.diagonal(X, 0, 1, -1), fg.ShapeError, ["diagonal", "axis 1", "(3, 4)"]),
    "diag-3d": (lambda: fg.diag(np.ones((2, 2, 2))), fg.ShapeError, ["diag", "(2, 2, 2)"]),
    "meshgrid-2d": (lambda: fg.meshgrid(X, X), fg.ShapeError, ["meshgrid", "1-D", "(3, 4)"]),
    "pad-negative": (lambda: fg.pad(X, (-1, 2)), fg.ShapeError, ["pad", "negative", "(3, 4)", "fg.lax.pad"]),
    "pad-mode": (lambda: fg.pad(X, 1, "median"), fg.TraceError, ["pad", "'median'", "reflect"]),
    "pad-keyword": (lambda: fg.pad(X, 1, "edge", constant_values=2), fg.TraceError, ["pad", "constant_values", "edge"]),
    "lax-pad-crops-too-much": (lambda: fg.lax.pad(X, 0.0, [(-3, -1, 0), (0, 0, 0)]), fg.ShapeError,
                               ["lax.pad", "crops more", "axis 0", "(3, 4)"]),
    "dot-inner-sizes": (lambda: fg.dot(X, X), fg.ShapeError, ["dot", "(3, 4)", "size 4", "size 3"]),
    "tensordot-axes": (lambda: fg.tensordot(X, X, 3), fg.ShapeError, ["tensordot", "axes=3", "(3, 4)"]),
    "einsum-sizes": (lambda: fg.einsum("ij,jk", X, X), fg.ShapeError, ["einsum", "'j'", "(3, 4)", "size 3"]),
    "einsum-operand-count": (lambda: fg.einsum("ij", X, X), fg.ShapeError, ["einsum", "'ij'", "2 were given"]),
    "einsum-rank": (lambda: fg.einsum("ijk", X), fg.ShapeError, ["einsum", "'ijk'", "(3, 4)"]),
    "einsum-output-label": (lambda: fg.einsum("ij->iz", X), fg.ShapeError, ["einsum", "'z'", "no operand"]),
    "einsum-repeated-sizes": (lambda: fg.einsum("ii", X), fg.ShapeError, ["einsum", "'i'", "repeats", "(3, 4)"]),
    "einsum-out": (lambda: fg.einsum("ij", X, out=X), fg.InputError, ["einsum", "out="]),
}


@pytest.mark.parametrize("fn, error, parts", MISTAKES.values(), ids=MISTAKES.keys())
def test_mistake_names_the_function_and_shapes_at_the_users_line(fn: Callable[[], Any], error: type,
                                                                 parts: list[str]) -> None:
    with pytest.raises(error) as e:
        fn()
    assert e.value.site == f"test_shapes_products.py:{fn.__code__.co_firstlineno}", str(e.value)
    for part in parts:
        assert part in str(e.value), f"{part!r} not in {str(e.value)!r}"


@pytest.mark.parametrize("fn, parts", [
    (lambda x: fg.split(x, 2), ["split", "(T, 2)", "symbolic axis T"]),
    (lambda x: fg.diagonal(fg.reshape(x, (x.shape[0], 2, 1)), 0, 0, 1), ["diagonal", "symbolic axis T"]),
    (lambda x: fg.tile(x, (2, 1)), ["tile", "symbolic axis T"]),
    (lambda x: fg.repeat(x, 2, axis=0), ["repeat", "symbolic axis T"]),
    (lambda x: fg.pad(x, ((1, 0), (0, 0)), "edge"), ["pad", "symbolic axis T"]),
])
def test_a_symbolic_axis_is_refused_where_a_fixed_size_is_needed(fn: Callable[..., Any], parts: list[str]) -> None:
    with pytest.raises(fg.ShapeError) as e:
        fg.trace(fn, fg.spec((T, 2)))
    assert e.value.site == f"test_shapes_products.py:{fn.__code__.co_firstlineno}", str(e.value)
    for part in parts:
        assert part in str(e.value), f"{part!r} not in {str(e.value)!r}"
