"""`fg.sharding`, `fg.shard_map` and the sharding arguments: JAX code written for a mesh runs on
fgrad's one device, against JAX on a one-device CPU mesh."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import PartitionSpec as JaxP

import fgrad as fg
from fgrad.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

P = fg.P
X = np.arange(24, dtype=np.float32).reshape(4, 6)


def jax_mesh(shape: tuple[int, ...], names: tuple[str, ...]) -> jax.sharding.Mesh:
    return jax.sharding.Mesh(np.array(jax.devices("cpu")[:1]).reshape(shape), names)


def test_meshes_are_of_the_one_device_as_jax_s_are_of_its_devices() -> None:
    mesh = fg.make_mesh((1, 1), ("data", "model"))
    assert isinstance(mesh, Mesh) and mesh.axis_names == ("data", "model") and mesh.shape == {"data": 1, "model": 1}
    assert mesh.size == 1 and mesh.devices.shape == (1, 1) and mesh.devices.flat[0] is fg.devices()[0]
    assert mesh == Mesh(np.array(fg.devices()).reshape(1, 1), ("data", "model")) and P is PartitionSpec
    assert repr(P("data", ("a", "b"), None)) == "P('data', ('a', 'b'), None)" == repr(JaxP("data", ("a", "b"), None))
    assert P("data", None) == ("data", None) and fg.tree_util.tree_leaves([P("x"), P()]) == [P("x"), P()]
    with pytest.raises(fg.InputError, match=r"make_mesh: axis_shapes \(2,\) must multiply to the number of devices, 1"):
        fg.make_mesh((2,), ("data",))
    with pytest.raises(fg.InputError, match=r"Mesh: 1 axis names \('data',\) for devices of shape \(1, 1\)"):
        Mesh(np.array(fg.devices()).reshape(1, 1), ("data",))
    with pytest.raises(fg.InputError, match=r"Mesh: devices must be a list of fg.local_devices"):
        Mesh(np.array(["cpu"]), ("data",))
    with pytest.raises(fg.InputError, match=r"Mesh: axis_names must be a name or a sequence of names, got 3"):
        fg.make_mesh((1,), 3)


def test_arrays_take_shardings_and_have_one() -> None:
    mesh = fg.make_mesh((1,), ("data",))
    sharding = NamedSharding(mesh, P("data", None))
    assert sharding.device_set == {fg.devices()[0]} and sharding.is_fully_replicated and sharding.num_devices == 1
    assert sharding.shard_shape((4, 6)) == (4, 6) and sharding == NamedSharding(mesh, P("data", None))
    a = fg.device_put(X, sharding)
    np.testing.assert_array_equal(np.asarray(a), X)
    assert a.sharding == SingleDeviceSharding(fg.devices()[0]) and a.sharding.device_set == a.devices()
    np.testing.assert_array_equal(np.asarray(fg.device_put({"w": X}, {"w": a.sharding})["w"]), X)
    with mesh:  # a bare PartitionSpec names the entered mesh's axes, as under jax.sharding.use_mesh
        np.testing.assert_array_equal(np.asarray(fg.device_put(X, P("data"))), X)
        assert fg.numpy.zeros(3, out_sharding=P("data")).shape == (3,)
    with pytest.raises(fg.InputError, match=r"device_put: P\('data', None, None\) has 3 entries for an "
                                            r"array of 2 axes"):
        fg.device_put(X, NamedSharding(mesh, P("data", None, None)))
    with pytest.raises(fg.InputError, match=r"NamedSharding: P\('model'\) names \['model'\], which "
                                            r"Mesh\('data': 1\) lacks"):
        NamedSharding(mesh, P("model"))
    with pytest.raises(fg.InputError, match=r"P\('data'\) names mesh axes, but no mesh is given"):
        fg.numpy.zeros(3, out_sharding=P("data"))


def test_jit_takes_shardings_and_with_sharding_constraint_keeps_the_value() -> None:
    mesh = fg.make_mesh((1,), ("data",))
    rows = NamedSharding(mesh, P("data"))

    @fg.jit
    def f(x):
        return fg.lax.with_sharding_constraint(x * 2, rows) + 1

    g = fg.jit(lambda x, y: (x @ y, x.sum()), in_shardings=(rows, None), out_shardings=(rows, NamedSharding(mesh, P())))
    np.testing.assert_array_equal(np.asarray(f(X)), X * 2 + 1)
    got = g(X, X.T)
    np.testing.assert_allclose(np.asarray(got[0]), X @ X.T)
    with pytest.raises(fg.InputError, match=r"jit: in_shardings: expected a sharding .* got 'x'"):
        fg.jit(lambda x: x, in_shardings=("x",))
    with pytest.raises(fg.InputError, match=r"with_sharding_constraint: P\('data', None, None\) has 3 "):
        fg.lax.with_sharding_constraint(X, NamedSharding(mesh, P("data", None, None)))


def test_shard_map_runs_the_body_on_the_whole_array_as_on_a_one_device_mesh() -> None:
    """Each mesh axis is bound, of size 1, for the body's collectives; the result is JAX's on a
    one-device mesh, in the new form (`jax.shard_map`) and the older positional one."""
    def body(lax, x):
        total = lax.psum(x.sum(axis=0), "data")
        return x * lax.axis_index("data") + total, lax.pmean(x.max(), ("data", "model"))

    mesh, jmesh = fg.make_mesh((1, 1), ("data", "model")), jax_mesh((1, 1), ("data", "model"))
    ours = fg.shard_map(lambda x: body(fg.lax, x), mesh=mesh, in_specs=P("data", "model"),
                        out_specs=(P("data", "model"), P()))
    theirs = jax.shard_map(lambda x: body(jax.lax, x), mesh=jmesh, in_specs=JaxP("data", "model"),
                           out_specs=(JaxP("data", "model"), JaxP()))
    want = theirs(jnp.asarray(X))
    for got in (ours(X), fg.jit(ours)(X)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w))
    positional = fg.shard_map(lambda x: body(fg.lax, x), mesh, P("data"), (P("data", "model"), P()))
    np.testing.assert_allclose(np.asarray(positional(X)[0]), np.asarray(want[0]))
    with mesh:
        decorated = fg.shard_map(in_specs=P(), out_specs=P())(lambda x: fg.lax.psum(x, "model"))
        np.testing.assert_array_equal(np.asarray(decorated(X)), X)


def test_shard_map_refuses_specs_its_mesh_cannot_take() -> None:
    mesh = fg.make_mesh((1,), ("data",))
    with pytest.raises(fg.InputError, match=r"shard_map: in_specs: P\('x'\) names \['x'\]"):
        fg.shard_map(lambda x: x, mesh=mesh, in_specs=P("x"), out_specs=P())(X)
    with pytest.raises(fg.InputError, match=r"shard_map: out_specs: P\('data', 'data'\) names a mesh axis "
                                            r"twice"):
        fg.shard_map(lambda x: x, mesh=mesh, in_specs=P(), out_specs=P("data", "data"))(X)
    with pytest.raises(fg.InputError, match=r"shard_map: no mesh"):
        fg.shard_map(lambda x: x, in_specs=P(), out_specs=P())(X)
    with pytest.raises(fg.InputError, match=r"shard_map: out_specs must be given"):
        fg.shard_map(lambda x: x, mesh=mesh, in_specs=P())


def test_a_named_sharding_works_in_jax_s_style_training_code() -> None:
    """The pattern of JAX's data-parallel examples, unchanged: a batch sharded on "data", the
    parameters replicated, the step jitted with those shardings."""
    mesh = fg.make_mesh((fg.device_count(),), ("data",))
    data, replicated = NamedSharding(mesh, P("data")), NamedSharding(mesh, P())
    w = fg.device_put(np.ones((6, 2), np.float32), replicated)
    x = fg.device_put(X, data)
    step = fg.jit(fg.grad(lambda w, x: ((x @ w) ** 2).mean()), in_shardings=(replicated, data),
                  out_shardings=replicated)
    want = jax.grad(lambda w, x: ((x @ w) ** 2).mean())(jnp.ones((6, 2)), jnp.asarray(X))
    np.testing.assert_allclose(np.asarray(step(w, x)), np.asarray(want), rtol=1e-6)


def test_random_samplers_take_out_sharding_as_jax_s() -> None:
    """Each of jax.random's samplers that takes `out_sharding` takes it here, keyword only, last."""
    import inspect

    theirs = {n for n in dir(jax.random) if callable(getattr(jax.random, n)) and
              "out_sharding" in inspect.signature(getattr(jax.random, n)).parameters}
    ours = {n for n in dir(fg.random) if callable(getattr(fg.random, n)) and not n.startswith("_") and
            "out_sharding" in getattr(inspect.signature(getattr(fg.random, n)), "parameters", {})}
    assert theirs & set(dir(fg.random)) <= ours
    for name in ours:
        parameter = list(inspect.signature(getattr(fg.random, name)).parameters.values())[-1]
        assert (parameter.name, parameter.kind, parameter.default) == ("out_sharding", parameter.KEYWORD_ONLY, None)
    key = fg.random.key(3)
    sharding = NamedSharding(fg.make_mesh((1,), ("data",)), P("data"))
    np.testing.assert_array_equal(np.asarray(fg.random.normal(key, (4,), out_sharding=sharding)),
                                  np.asarray(fg.random.normal(key, (4,))))
    with pytest.raises(fg.InputError, match=r"^normal: expected a sharding .* got 'x'"):
        fg.random.normal(key, (4,), out_sharding="x")
