"""Training: optimizers against optax's formulas, donation, nn layers, captures, examples."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fgrad as fg
from fgrad import nn, optim
from fgrad.pytree import flatten

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

RNG = np.random.default_rng(7)


def quadratic_loss(p, x, y):
    h = fg.tanh(x @ p["w"] + p["b"])
    return fg.mean((h @ p["v"] - y) ** 2)


def problem():
    params = {"w": RNG.normal(size=(4, 3)).astype(np.float32), "b": RNG.normal(size=3).astype(np.float32),
              "v": RNG.normal(size=(3, 2)).astype(np.float32)}
    return params, RNG.normal(size=(8, 4)).astype(np.float32), RNG.normal(size=(8, 2)).astype(np.float32)


def separable_loss(p, a, b):
    """Gradients are elementwise (no sums that cancel), so f32 and float64 runs stay close:
    the test compares optimizer arithmetic, not gradient rounding."""
    return sum(fg.mean((p[k] * a[k] - b[k]) ** 2) for k in sorted(p))


def separable_problem():
    params = problem()[0]
    return (params, {k: (1 + RNG.random(v.shape)).astype(np.float32) for k, v in params.items()},
            {k: RNG.normal(size=v.shape).astype(np.float32) for k, v in params.items()})


# ---------------------------------------------------------------------------
# NumPy versions of optax's formulas
# ---------------------------------------------------------------------------


def np_schedule(name, step):
    if name == "constant":
        return 0.01
    if name == "warmup":
        return 0.02 * min(step / 4, 1.0)
    if name == "cosine":
        return 0.02 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(step, 8) / 8)) + 0.1)
    warm, decay, peak, end = 3, 9, 0.02, 0.001
    if step < warm:
        return peak * step / warm
    progress = min(step - warm, decay - warm) / (decay - warm)
    return end + (peak - end) * 0.5 * (1 + math.cos(math.pi * progress))


FG_SCHEDULES = {
    "constant": 0.01,
    "warmup": optim.linear_warmup(0.02, 4),
    "cosine": optim.cosine_decay(0.02, 8, alpha=0.1),
    "warmup_cosine": optim.warmup_cosine(0.02, 3, 9, end=0.001),
}


def f32(v):
    """A hyperparameter as the f32 constant it becomes in a graph (and in optax under JAX)."""
    return float(np.float32(v))


def np_adam(params, grads_of, steps, schedule, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, mask=None, clip=None):
    b1, b2, c1, c2, eps, wd = f32(b1), f32(b2), f32(1 - b1), f32(1 - b2), f32(eps), f32(wd)
    p = {k: v.astype(np.float64) for k, v in params.items()}
    mu = {k: np.zeros_like(v) for k, v in p.items()}
    nu = {k: np.zeros_like(v) for k, v in p.items()}
    for t in range(steps):
        g = grads_of(p)
        if clip is not None:
            norm = math.sqrt(sum(float((gi ** 2).sum()) for gi in g.values()))
            g = {k: gi * (1.0 if norm < clip else clip / norm) for k, gi in g.items()}
        lr = np_schedule(schedule, t)
        for k in p:
            mu[k] = b1 * mu[k] + c1 * g[k]
            nu[k] = b2 * nu[k] + c2 * g[k] ** 2
            update = (mu[k] / (1 - b1 ** (t + 1))) / (np.sqrt(nu[k] / (1 - b2 ** (t + 1))) + eps)
            if wd and (mask is None or mask[k]):
                update = update + wd * p[k]
            p[k] = p[k] - lr * update
    return p, mu, nu


def np_sgd(params, grads_of, steps, lr, momentum, nesterov):
    lr, momentum = f32(lr), f32(momentum)
    p = {k: v.astype(np.float64) for k, v in params.items()}
    trace = {k: np.zeros_like(v) for k, v in p.items()}
    for _ in range(steps):
        g = grads_of(p)
        for k in p:
            trace[k] = g[k] + momentum * trace[k]
            update = g[k] + momentum * trace[k] if nesterov else trace[k]
            p[k] = p[k] - lr * update
    return p


def grads_of(loss, x, y):
    graph = fg.grad(fg.trace(loss, problem()[0], x, y))
    return lambda p: fg.interpret(graph, p, x, y, float64=True)


ADAM_CASES = {
    "adam": dict(),
    "adamw": dict(weight_decay=0.1),
    "adamw_masked": dict(weight_decay=0.1, decay_mask={"w": True, "b": False, "v": True}),
    "adamw_predicate": dict(weight_decay=0.1, decay_mask=lambda path: path != "b"),
    "clipped": dict(clip_norm=0.05),
}


def _run(step, params, state, x, y, steps, run):
    for _ in range(steps):
        params, state, _ = run(step, params, state, x, y)
    return params, state


def _interpret(step, *args):
    return fg.interpret(step, *args, float64=True)


def _device(step, *args):
    exe = _device.cache.setdefault(step, fg.compile(step, donate_argnums=(0, 1)))
    return exe(*args)


_device.cache = {}


# Every case with every schedule in interpret; on the device, every case with one
# schedule and every schedule with two cases.
ADAM_RUNS = [(c, s, "interpret") for c in sorted(ADAM_CASES) for s in sorted(FG_SCHEDULES)] + [
    (c, s, "device") for c in sorted(ADAM_CASES) for s in sorted(FG_SCHEDULES)
    if s == "warmup_cosine" or c in ("adam", "adamw_masked")]


@pytest.mark.parametrize("case, schedule, where", ADAM_RUNS)
def test_adam_matches_optax_formulas_over_ten_steps(case, schedule, where):
    params, x, y = separable_problem()
    kwargs = ADAM_CASES[case]
    step = optim.adam_step(fg.trace(separable_loss, params, x, y), lr=FG_SCHEDULES[schedule], **kwargs)
    mask = kwargs.get("decay_mask")
    mask = {k: mask(k) for k in params} if callable(mask) else mask
    want_p, want_mu, want_nu = np_adam(params, grads_of(separable_loss, x, y), 10, schedule,
                                       wd=kwargs.get("weight_decay", 0.0), mask=mask, clip=kwargs.get("clip_norm"))
    got_p, got_state = _run(step, params, optim.adam_init(params), x, y, 10,
                            _interpret if where == "interpret" else _device)
    # 1e-6 relative to each array's scale: an element that crossed zero is held to the array's precision.
    for got, want in ((got_p, want_p), (got_state["mu"], want_mu), (got_state["nu"], want_nu)):
        for k in params:
            scale = np.abs(want[k]).max()
            np.testing.assert_allclose(np.asarray(got[k]), want[k], rtol=1e-6, atol=1e-6 * scale, err_msg=k)
    assert int(np.asarray(got_state["step"])) == 10


@pytest.mark.parametrize("momentum, nesterov", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd_matches_optax_formulas(momentum, nesterov):
    params, x, y = problem()
    step = optim.sgd_step(fg.trace(quadratic_loss, params, x, y), lr=0.05, momentum=momentum, nesterov=nesterov)
    want = np_sgd(params, grads_of(quadratic_loss, x, y), 10, 0.05, momentum, nesterov)
    got, _ = _run(step, params, optim.sgd_init(params), x, y, 10, _interpret)
    for k in params:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-6, atol=1e-7)


def test_function_form_steps_eagerly_like_the_graph():
    params, x, y = problem()
    graph_step = optim.adam_step(fg.trace(quadratic_loss, params, x, y), lr=optim.linear_warmup(0.01, 3))
    fn_step = optim.adam_step(quadratic_loss, lr=optim.linear_warmup(0.01, 3))
    a = _run(graph_step, params, optim.adam_init(params), x, y, 3, lambda s, *args: fg.interpret(s, *args))
    b = _run(fn_step, params, optim.adam_init(params), x, y, 3, lambda s, *args: s(*args))
    for u, v in zip(flatten(a)[0], flatten(b)[0]):
        np.testing.assert_allclose(u, v, rtol=1e-6)


def test_schedule_must_return_a_scalar():
    params, x, y = problem()

    def make():
        return optim.adam_step(fg.trace(quadratic_loss, params, x, y), lr=lambda step: fg.broadcast_to(step, (3,)))

    with pytest.raises(fg.ShapeError, match=r"adam_step: the learning-rate schedule returned shape \(3,\)"):
        make()


def test_step_with_wrong_parameter_structure_is_named():
    params, x, y = problem()
    exe = fg.compile(optim.adam_step(fg.trace(quadratic_loss, params, x, y)))
    wrong = {k: v for k, v in params.items() if k != "b"}

    def call():
        return exe(wrong, optim.adam_init(params), x, y)

    with pytest.raises(fg.InputError, match=r"argument p does not match the graph's input") as e:
        call()
    assert f"test_training.py:{call.__code__.co_firstlineno + 1}" in str(e.value)


# ---------------------------------------------------------------------------
# Donation
# ---------------------------------------------------------------------------


def test_donated_step_updates_in_place_and_allocates_only_the_loss():
    params, x, y = problem()
    exe = fg.compile(optim.adam_step(fg.trace(quadratic_loss, params, x, y)), donate_argnums=(0, 1))
    program = exe.program
    kinds = [program.buffers[b].kind for b in program.outputs]
    assert kinds.count("output") == 1  # the loss; new parameters and state reuse the donated buffers
    p, s = params, optim.adam_init(params)
    p, s, _ = exe(p, s, x, y)
    buffers = [id(a.buffer) for a in flatten((p, s))[0]]
    p2, s2, _ = exe(p, s, x, y)
    assert [id(a.buffer) for a in flatten((p2, s2))[0]] == buffers


def test_using_a_donated_array_is_an_error():
    params, x, y = problem()
    exe = fg.compile(optim.adam_step(fg.trace(quadratic_loss, params, x, y)), donate_argnums=(0, 1))
    p, s, _ = exe(params, optim.adam_init(params), x, y)
    old = p
    exe(p, s, x, y)

    def read():
        return old["w"].numpy()

    with pytest.raises(fg.InputError, match=r"was donated to a compiled call at test_training.py:\d+") as e:
        read()
    assert f"test_training.py:{read.__code__.co_firstlineno + 1}" in str(e.value)
    with pytest.raises(fg.InputError, match=r"argument p.b .* was donated"):
        exe(old, s, x, y)


def test_mlp_trains_to_98_percent_through_the_compiled_donated_step():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(4, 8)) * 3
    labels = rng.integers(0, 4, 256).astype(np.int32)
    x = (centres[labels] + rng.normal(size=(256, 8))).astype(np.float32)
    params = nn.init_mlp(rng, [8, 32, 4])

    def loss(p, xb, yb):
        return nn.cross_entropy(nn.mlp(p, xb), yb)

    step = fg.compile(optim.adam_step(fg.trace(loss, params, x, labels), lr=0.02), donate_argnums=(0, 1))
    state = optim.adam_init(params)
    for _ in range(60):
        params, state, _ = step(params, state, x, labels)
    predict = fg.jit(lambda p, xb: fg.argmax(nn.mlp(p, xb), axis=-1))
    accuracy = (np.asarray(predict(params, x)) == labels).mean()
    assert accuracy >= 0.98


# ---------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------


def test_layers_match_numpy():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 8)).astype(np.float32)
    ln = {"g": rng.normal(size=8).astype(np.float32), "b": rng.normal(size=8).astype(np.float32)}
    got = fg.interpret(fg.trace(nn.layer_norm, ln, x), ln, x)
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(got, (x - mu) / np.sqrt(var + 1e-5) * ln["g"] + ln["b"], rtol=1e-4, atol=1e-5)
    rms = {"g": ln["g"]}
    got = fg.interpret(fg.trace(nn.rms_norm, rms, x), rms, x)
    np.testing.assert_allclose(got, x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * rms["g"], rtol=1e-5)
    lin = nn.init_linear(rng, 8, 3)
    np.testing.assert_allclose(fg.interpret(fg.trace(nn.linear, lin, x), lin, x), x @ lin["w"] + lin["b"], rtol=1e-5)
    emb = nn.init_embedding(rng, 10, 4)
    ids = np.array([[1, 9], [0, 1]], np.int32)
    np.testing.assert_array_equal(fg.interpret(fg.trace(nn.embedding, emb, ids), emb, ids), emb["w"][ids])


def test_attention_is_causal():
    rng = np.random.default_rng(4)
    p = nn.init_attention(rng, 8, std=0.5)
    x = rng.normal(size=(1, 6, 8)).astype(np.float32)
    f = fg.jit(lambda p, x: nn.causal_self_attention(p, x, 2))
    changed = x.copy()
    changed[0, 4:] += 1.0  # only positions 4 and 5 change
    a, b = np.asarray(f(p, x)), np.asarray(f(p, changed))
    np.testing.assert_allclose(a[0, :4], b[0, :4], rtol=1e-5, atol=1e-6)
    assert np.abs(a[0, 4:] - b[0, 4:]).max() > 1e-3


def test_gpt_initialisers_and_shapes():
    config = nn.GPTConfig(vocab=11, context=8, width=16, heads=2, layers=2)
    params = nn.init_gpt(np.random.default_rng(0), config)
    assert params["wte"].shape == (11, 16) and len(params["blocks"]) == 2
    assert abs(params["wte"].std() - 0.02) < 0.005 and (params["blocks"][0]["ln1"]["g"] == 1).all()
    w = nn.he_normal(np.random.default_rng(0), (400, 300))
    assert abs(w.std() - math.sqrt(2 / 400)) < 0.003
    tokens = np.zeros((3, 5), np.int32)
    graph = fg.trace(lambda p, t: nn.gpt(p, t, config), params, tokens)
    assert graph.out_specs[0].shape == (3, 5, 11)


def test_shape_annotations_name_the_dimension():
    config = nn.GPTConfig(vocab=11, context=8, width=16, heads=2, layers=1)
    params = nn.init_gpt(np.random.default_rng(0), config)

    def f(p, t):
        return nn.gpt(p, t, config)

    with pytest.raises(fg.ShapeError, match=r"gpt: .*parameter 'tokens'.*Int\[Tensor, 'batch seq'\]") as e:
        fg.trace(f, params, fg.spec((3, 5)))  # float tokens
    assert "test_training.py" in str(e.value)
    with pytest.raises(fg.ShapeError, match=r"cross_entropy: .*labels"):
        fg.trace(nn.cross_entropy, fg.spec((4, 3)), fg.spec(5, "i32"))  # batch 4 against 5 labels


# ---------------------------------------------------------------------------
# Captures
# ---------------------------------------------------------------------------


def captured_model(p, x):
    h = fg.capture("hidden", fg.relu(x @ p["w"]))
    return fg.sum(fg.capture("scores", h * 2.0))


def test_captures_are_returned_only_when_asked():
    p = {"w": RNG.normal(size=(3, 4)).astype(np.float32)}
    x = RNG.normal(size=(2, 3)).astype(np.float32)
    graph = fg.trace(captured_model, p, x)
    exe = fg.compile(graph)
    plain = exe(p, x)
    assert isinstance(plain, fg.Array)
    out, caps = exe(p, x, captures=True)
    np.testing.assert_allclose(caps["hidden"].numpy(), np.maximum(x @ p["w"], 0), rtol=1e-5)
    assert caps["scores"].shape == (2, 4) and float(out) == pytest.approx(float(plain), rel=1e-6)
    _, only = exe(p, x, captures=["hidden"])
    assert list(only) == ["hidden"]
    _, ref = fg.interpret(graph, p, x, captures=True)
    np.testing.assert_allclose(ref["scores"], caps["scores"].numpy(), rtol=1e-5)
    # The plain program does not compute what nobody asked for.
    assert all(exe.program.graph.nodes[i].op != "mul" for k in exe.program.kernels for i in k.roots)
    with pytest.raises(fg.InputError, match=r"no capture named 'hiden'; the graph has 'hidden', 'scores'"):
        exe(p, x, captures=["hiden"])


def test_capture_survives_grad_and_duplicate_names_are_errors():
    p = {"w": RNG.normal(size=(3, 4)).astype(np.float32)}
    x = RNG.normal(size=(2, 3)).astype(np.float32)
    grads = fg.grad(fg.trace(captured_model, p, x))
    assert dict(grads.captures).keys() == {"hidden", "scores"}

    def twice(x):
        fg.capture("h", x * 2.0)
        return fg.sum(fg.capture("h", x * 3.0))

    with pytest.raises(fg.TraceError, match=r"capture: the name 'h' is already captured") as e:
        fg.trace(twice, fg.spec(3))
    assert f"test_training.py:{twice.__code__.co_firstlineno + 2}" in str(e.value)


# ---------------------------------------------------------------------------
# Examples, in smoke configurations
# ---------------------------------------------------------------------------


def test_charlm_example_trains_saves_and_resumes(tmp_path, capsys):
    from fgrad.examples import charlm

    ckpt = str(tmp_path / "charlm.ckpt")
    small = ["--width", "16", "--layers", "1", "--heads", "2", "--context", "8", "--batch", "4",
             "--corpus-bytes", "20000", "--sample-length", "8", "--checkpoint", ckpt]
    first = charlm.main(["--steps", "12", *small])
    assert math.isfinite(first)
    out = capsys.readouterr().out
    assert "tokens/s" in out and "--- sample ---" in out and f"saved {ckpt} (step 12)" in out
    charlm.main(["--steps", "3", "--resume", ckpt, *small])
    out = capsys.readouterr().out
    assert "resumed from" in out and "(step 15)" in out


def test_sort_example_learns_to_sort():
    from fgrad.examples import sort

    result = sort.main(["--length", "4", "--width", "32", "--batch", "32", "--steps", "200", "--lr", "1e-2"])
    assert result["sequence_accuracy"] >= 0.95


def test_quickstart_example_prints_the_graph_and_a_loss(capsys):
    from fgrad.examples import quickstart

    quickstart.main()
    out = capsys.readouterr().out
    assert out.startswith("graph(") and "= matmul" in out and "log_softmax" in out
    loss = float(out.rsplit("loss = ", 1)[1].split()[0])
    assert 1.0 < loss < 10.0
