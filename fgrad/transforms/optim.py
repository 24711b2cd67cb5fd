"""Optimizers as graph transforms, and learning-rate schedules written with fgrad ops.

`adam_step(loss)` turns a loss `(params, *data) -> loss` into a training
step `(params, opt_state, *data) -> (new_params, new_opt_state, loss)`:
the gradient, the update, the bias correction and the step count all live
in one graph, so a compiled step never leaves the device. The numbers are
optax's: `adam_step` is `optax.adam` (with `weight_decay`, `optax.adamw`;
with `clip_norm`, `optax.clip_by_global_norm` first), `sgd_step` is
`optax.sgd`. A learning rate may be a float or a schedule: a function of
the step count (an f32 scalar Tensor, 0 at the first step) written with
fgrad ops, such as `warmup_cosine(3e-4, 100, 2000)`, so changing it never
recompiles.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad.transforms.autodiff import _check_grad, inline, value_and_grad
from fgrad.errors import FgradError, InputError, ShapeError
from fgrad.ir import DType, Graph
from fgrad.numpy import abs, asarray, astype, cos, exp, minimum, sqrt, sum, where
from fgrad.transforms.passes import simplify
from fgrad.pytree import first_difference, flatten, leaf_paths, unflatten
from fgrad.trace import spec_of, trace_function, user_site

LearningRate = float | Callable[[Any], Any]


# ---------------------------------------------------------------------------
# Schedules: step count (f32 scalar, 0 first) -> learning rate
# ---------------------------------------------------------------------------


_REAL = (int, float, np.integer, np.floating)


def _not_numbers(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if not isinstance(v, _REAL) or isinstance(v, bool)}


def _refuse(name: str, bad: dict[str, Any], rule: str) -> None:
    """Raise an InputError showing the settings in `bad` (if any) and the `rule` they break."""
    if bad:
        shown = ", ".join(f"{k}={v!r}" for k, v in bad.items())
        raise InputError(f"{name}: {shown}: {rule}", user_site())


def _check_schedule(name: str, steps: dict[str, Any], **numbers: Any) -> None:
    """A schedule's settings: numbers, and step counts that are non-negative integers."""
    bad = _not_numbers(**numbers) | {k: v for k, v in steps.items()
                                     if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0}
    _refuse(name, bad, "rates must be numbers and step counts non-negative integers")


def constant(value: float) -> Callable[[Any], Any]:
    """The same learning rate at every step."""
    _check_schedule("constant", {}, value=value)
    return lambda step: asarray(value)


def linear_warmup(peak: float, warmup_steps: int, init: float = 0.0) -> Callable[[Any], Any]:
    """From `init` up to `peak` linearly over `warmup_steps`, then `peak`."""
    _check_schedule("linear_warmup", {"warmup_steps": warmup_steps}, peak=peak, init=init)
    return lambda step: init + (peak - init) * minimum(step / float(max(warmup_steps, 1)), 1.0)


def cosine_decay(init: float, decay_steps: int, alpha: float = 0.0) -> Callable[[Any], Any]:
    """optax.cosine_decay_schedule: from `init` down to `alpha * init` over `decay_steps`, then flat."""
    _check_schedule("cosine_decay", {"decay_steps": decay_steps}, init=init, alpha=alpha)
    if decay_steps < 1:
        raise InputError(f"cosine_decay: decay_steps={decay_steps!r} must be positive, as in optax", user_site())

    def schedule(step: Any) -> Any:
        progress = minimum(step, float(decay_steps)) / float(decay_steps)
        return init * ((1.0 - alpha) * 0.5 * (1.0 + cos(progress * math.pi)) + alpha)

    return schedule


def warmup_cosine(peak: float, warmup_steps: int, decay_steps: int, init: float = 0.0, end: float = 0.0
                  ) -> Callable[[Any], Any]:
    """optax.warmup_cosine_decay_schedule: linear from `init` to `peak` over `warmup_steps`,
    then cosine down to `end` at `decay_steps` (counted from the start)."""
    _check_schedule("warmup_cosine", {"warmup_steps": warmup_steps, "decay_steps": decay_steps}, peak=peak,
                    init=init, end=end)
    warm = linear_warmup(peak, warmup_steps, init)
    cool = cosine_decay(peak - end, max(decay_steps - warmup_steps, 1))

    def schedule(step: Any) -> Any:
        return where(step < float(warmup_steps), warm(step), cool(step - float(warmup_steps)) + end)

    return schedule


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


def _zeros_like(params: Any, name: str) -> Any:
    leaves, tree = flatten(params)
    try:
        specs = [spec_of(p, path) for p, path in zip(leaves, leaf_paths(tree, "params"))]
    except FgradError as e:  # a leaf that is not an array (a string, a complex array)
        raise type(e)(f"{name}: {e}", user_site()) from None
    symbolic = next(((path, s) for path, s in zip(leaf_paths(tree, "params"), specs) if s.symbols), None)
    if symbolic is not None:
        raise ShapeError(f"{name}: parameter {symbolic[0]} is {symbolic[1]}, of the symbol {symbolic[1].symbols[0]}: "
                         "optimizer state has fixed shapes (data arguments may be symbolic)", user_site())
    return unflatten(tree, [np.zeros(s.shape, np.float32) for s in specs])


def adam_init(params: Any) -> dict[str, Any]:
    """Adam's state for `params` (arrays or Specs): step count 0, zero moments (f32, whatever the
    parameters' float dtype: the update is computed in f32, and each parameter keeps its dtype)."""
    return {"step": np.zeros((), np.int32), "mu": _zeros_like(params, "adam_init"),
            "nu": _zeros_like(params, "adam_init")}


def sgd_init(params: Any) -> dict[str, Any]:
    """SGD's state for `params`: step count 0, zero momentum trace."""
    return {"step": np.zeros((), np.int32), "trace": _zeros_like(params, "sgd_init")}


def _check_state(name: str, params: Any, opt_state: Any, init: Callable[[Any], Any]) -> None:
    """Refuse an optimizer state that is not `init(params)`'s in structure and shapes (another
    optimizer's state, or one made for other parameters)."""
    want_leaves, want = flatten(init(params))
    got_leaves, got = flatten(opt_state)
    found = first_difference(want, got)
    if found is None:
        found = next(((path, f"expected shape {np.shape(w)}, got {np.shape(g)}")
                      for path, w, g in zip(leaf_paths(want), want_leaves, got_leaves)
                      if np.shape(w) != np.shape(g)), None)
    if found is not None:
        path, what = found
        raise InputError(f"{name}: opt_state does not match {init.__name__}(params) at {path or 'the top level'}: "
                         f"{what}", user_site())


def _check_hyperparameters(name: str, lr: Any, clip_norm: Any, **numbers: Any) -> None:
    bad = _not_numbers(**numbers)
    if not (callable(lr) or isinstance(lr, _REAL) and not isinstance(lr, bool)):
        bad["lr"] = lr
    if clip_norm is not None and _not_numbers(clip_norm=clip_norm):
        bad["clip_norm"] = clip_norm
    _refuse(name, bad, "hyperparameters must be numbers (lr may be a schedule)")


# ---------------------------------------------------------------------------
# Updates, written with fgrad ops (eager on NumPy, or traced)
# ---------------------------------------------------------------------------


def _learning_rate(lr: LearningRate, step: Any, name: str) -> Any:
    value = asarray(lr(astype(step, DType.f32)) if callable(lr) else float(lr))
    if np.shape(value) != ():
        raise ShapeError(f"{name}: the learning-rate schedule returned shape {np.shape(value)}; it must return a "
                         "scalar", user_site())
    return asarray(value, DType.f32)


def _clip(grads: list[Any], clip_norm: float | None) -> list[Any]:
    """optax.clip_by_global_norm: scale all gradients by min(1, clip_norm / global norm)."""
    if clip_norm is None:
        return grads
    norm = sqrt(functools.reduce(lambda a, b: a + b, [sum(g * g) for g in grads]))
    scale = where(norm < clip_norm, 1.0, clip_norm / norm)
    return [g * scale for g in grads]


def _decayed(params: Any, decay_mask: Any) -> list[bool]:
    """Which parameter leaves weight decay applies to: a pytree of bools, a predicate on
    the leaf path (`layers.0.w`), or None for all."""
    leaves, tree = flatten(params)
    if decay_mask is None:
        return [True] * len(leaves)
    if callable(decay_mask):
        return [bool(decay_mask(path)) for path in leaf_paths(tree)]
    mask, mask_tree = flatten(decay_mask)
    if mask_tree != tree:
        raise ShapeError(f"decay_mask: its structure {mask_tree} differs from the parameters' {tree}", user_site())
    return [bool(m) for m in mask]


def _one_minus_power(base: float, t: Any) -> Any:
    """1 - base**t for 0 < base < 1, as -expm1(t log base): accurate where base**t is near 1
    (Adam's bias correction at early steps), where `1 - pow(base, t)` in f32 loses digits.
    `base` is taken as the f32 it is in a graph (and in optax under JAX)."""
    x = t * math.log(float(np.float32(base)))
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0))))  # expm1 for |x| < 1e-2, to 1e-12
    return -where(abs(x) < 1e-2, series, exp(x) - 1.0)


def _keeping_dtype(p: Any, new: Any) -> Any:
    """The updated parameter in the dtype of `p`: an f16 parameter stays f16, its update computed
    in f32 beside the f32 optimizer state."""
    return astype(new, spec_of(p).dtype)


def _adam_update(params: Any, state: Any, grads: Any, *, lr: LearningRate, b1: float, b2: float, eps: float,
                 weight_decay: float, decay_mask: Any, clip_norm: float | None) -> tuple[Any, Any]:
    leaves, tree = flatten(params)
    g = _clip(flatten(grads)[0], clip_norm)
    step = state["step"]
    t = astype(step + 1, DType.f32)
    rate = _learning_rate(lr, step, "adam_step")
    correct1, correct2 = _one_minus_power(b1, t), _one_minus_power(b2, t)
    new_p, new_mu, new_nu = [], [], []
    for p, gi, mu, nu, decay in zip(leaves, g, flatten(state["mu"])[0], flatten(state["nu"])[0],
                                    _decayed(params, decay_mask)):
        mu = b1 * mu + (1.0 - b1) * gi
        nu = b2 * nu + (1.0 - b2) * gi * gi
        update = (mu / correct1) / (sqrt(nu / correct2) + eps)
        if weight_decay and decay:
            update = update + weight_decay * p
        new_p.append(_keeping_dtype(p, p - rate * update))
        new_mu.append(mu)
        new_nu.append(nu)
    return unflatten(tree, new_p), {"step": step + 1, "mu": unflatten(tree, new_mu), "nu": unflatten(tree, new_nu)}


def _sgd_update(params: Any, state: Any, grads: Any, *, lr: LearningRate, momentum: float, nesterov: bool
                ) -> tuple[Any, Any]:
    leaves, tree = flatten(params)
    step = state["step"]
    rate = _learning_rate(lr, step, "sgd_step")
    new_p, new_trace = [], []
    for p, g, trace in zip(leaves, flatten(grads)[0], flatten(state["trace"])[0]):
        if momentum:
            trace = g + momentum * trace
            update = g + momentum * trace if nesterov else trace
        else:
            update = g
        new_p.append(_keeping_dtype(p, p - rate * update))
        new_trace.append(trace)
    return unflatten(tree, new_p), {"step": step + 1, "trace": unflatten(tree, new_trace)}


# ---------------------------------------------------------------------------
# The transforms
# ---------------------------------------------------------------------------

Update = Callable[[Any, Any, Any], tuple[Any, Any]]


def _step_transform(f: Graph | Callable[..., Any], name: str, update: Update,
                    init: Callable[[Any], Any]) -> Graph | Callable[..., Any]:
    """Build `(params, opt_state, *data) -> (new_params, new_opt_state, loss)` from a loss."""
    if not isinstance(f, Graph):
        grad_fn = value_and_grad(f)

        def step(params: Any, opt_state: Any, *data: Any) -> tuple[Any, Any, Any]:
            _check_state(name, params, opt_state, init)
            loss, grads = grad_fn(params, *data)
            new_params, new_state = update(params, opt_state, grads)
            return new_params, new_state, loss

        step.__name__ = f"{name}_{getattr(f, '__name__', 'loss')}"
        return step
    if len(f.in_tree.children) < 1:
        raise ShapeError(f"{name}: the loss must take the parameters as its first argument", user_site())
    _check_grad(f, len(f.in_tree.children), 0, False, name, user_site())
    grad_graph = value_and_grad(f)

    def body(params: Any, opt_state: Any, *data: Any) -> tuple[Any, Any, Any]:
        loss, grads = inline(grad_graph, params, *data)
        new_params, new_state = update(params, opt_state, grads)
        return new_params, new_state, loss

    args = list(unflatten(f.in_tree, list(f.in_specs)))
    names = [f.arg_names[0], "opt_state", *f.arg_names[1:]]
    return simplify(trace_function(body, [args[0], init(args[0]), *args[1:]], names)[0])


def adam_step(f: Graph | Callable[..., Any], lr: LearningRate = 1e-3, b1: float = 0.9, b2: float = 0.999,
              eps: float = 1e-8, weight_decay: float = 0.0, decay_mask: Any = None,
              clip_norm: float | None = None) -> Graph | Callable[..., Any]:
    """Adam (AdamW with `weight_decay`) as a transform of a loss `(params, *data) -> loss`.

    Returns the step `(params, opt_state, *data) -> (new_params, new_opt_state,
    loss)` as a Graph (given a Graph) or a function (given a function); the
    state comes from `adam_init(params)`. Weight decay is decoupled
    (`p -= lr * wd * p`) and applies where `decay_mask` (a pytree of bools or
    a predicate on the parameter path) says; `clip_norm` clips the global
    gradient norm first.
    """
    _check_hyperparameters("adam_step", lr, clip_norm, b1=b1, b2=b2, eps=eps, weight_decay=weight_decay)
    update = functools.partial(_adam_update, lr=lr, b1=b1, b2=b2, eps=eps, weight_decay=weight_decay,
                               decay_mask=decay_mask, clip_norm=clip_norm)
    return _step_transform(f, "adam_step", update, adam_init)


def sgd_step(f: Graph | Callable[..., Any], lr: LearningRate = 1e-2, momentum: float = 0.0,
             nesterov: bool = False) -> Graph | Callable[..., Any]:
    """SGD with optional (Nesterov) momentum, as `adam_step`; the state comes from `sgd_init(params)`."""
    _check_hyperparameters("sgd_step", lr, None, momentum=momentum)
    if nesterov and not momentum:
        raise FgradError("sgd_step: nesterov=True needs a momentum", user_site())
    update = functools.partial(_sgd_update, lr=lr, momentum=momentum, nesterov=nesterov)
    return _step_transform(f, "sgd_step", update, sgd_init)
