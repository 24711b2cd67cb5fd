"""Op-table rows: control flow (fg.lax.scan, fori_loop, while_loop, cond, switch).

The references are Python loops and branches in float64. while_loop's rows take no float input:
its reverse mode is refused, as in JAX, so no row of it belongs in the VJP column (its forward
mode and batching are checked in tests/test_control_flow.py and through the table)."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import B, F, F16, H, I, U, Case, rounded

lax = fg.lax


def rnn(h, xs):
    """A recurrence with a y per step: h = tanh(h/2 + x), y = h * x."""
    return lax.scan(lambda h, x: (fg.tanh(h * 0.5 + x), h * x), h, xs)


def rnn_ref(h, xs):
    ys = []
    for x in xs:
        h, y = np.tanh(h * 0.5 + x), h * x
        ys.append(y)
    return h, np.stack(ys)


def decayed_ref(c, xs, decay):
    for x in xs[::-1]:
        c = c * decay + x
    return c


def closures(w, xs):
    """A pytree carry, a closed-over weight (a const of the body), a y from the carry."""
    def step(carry, x):
        acc, scale = carry
        return (acc + x @ w, scale * 1.5), (acc * scale).sum()
    return lax.scan(step, (fg.zeros(2), fg.ones(2)), xs)[1]


def closures_ref(w, xs):
    acc, scale, ys = np.zeros(2), np.ones(2), []
    for x in xs:
        ys.append((acc * scale).sum())
        acc, scale = acc + x @ w, scale * 1.5
    return np.array(ys)


def counted_ref(n, v, step):
    for i in range(int(n)):
        v = step(i, v)
    return v


def stacked_ref(c, n, step):
    """The carries before each of n steps, stacked."""
    ys = []
    for _ in range(n):
        ys.append(c)
        c = step(c)
    return np.stack(ys)


def while_ref(pred, step, v):
    while pred(v):
        v = step(v)
    return v


BRANCHES = [lambda x: x + 1.0, lambda x: fg.sin(x) * 2.0, lambda x: x * x]
BRANCHES_REF = [lambda x: x + 1.0, lambda x: np.sin(x) * 2.0, lambda x: x * x]


OP_ROWS: tuple[Case, ...] = (  # every new primitive's rows (value, WGSL, VJP)
    # scan: ys, the final carry, reverse, consts, pytrees, no xs, no iterations, an integer carry
    Case("scan", "rnn-ys", lambda h, xs: rnn(h, xs)[1], (F(3), F(4, 3)), lambda h, xs: rnn_ref(h, xs)[1]),
    Case("scan", "rnn-carry", lambda h, xs: rnn(h, xs)[0], (F(2, 3), F(5, 2, 3)), lambda h, xs: rnn_ref(h, xs)[0]),
    Case("scan", "reverse", lambda c, xs: lax.scan(lambda c, x: (c * 0.9 + x, None), c, xs, reverse=True)[0],
         (F(3), F(4, 3)), lambda c, xs: decayed_ref(c, xs, 0.9)),
    Case("scan", "closure-pytree", closures, (F(3, 2), F(4, 3)), closures_ref),
    Case("scan", "no-xs", lambda c: lax.scan(lambda c, _: (c * 1.5 - 0.5, c), c, None, length=4)[1], (F(2),),
         lambda c: stacked_ref(c, 4, lambda c: c * 1.5 - 0.5)),
    Case("scan", "length-zero", lambda c, xs: lax.scan(lambda c, x: (c * x, c), c, xs[:0])[0], (F(3), F(2, 3)),
         lambda c, xs: c),
    Case("scan", "i32-carry", lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0, xs)[1], (I(5),),
         lambda xs: np.array([xs[:k].sum() * xs[k] for k in range(5)])),
    Case("scan", "fori_loop-static", lambda v: lax.fori_loop(1, 4, lambda i, v: v * 0.5 + i, v), (F(2, 2),),
         lambda v: counted_ref(3, v, lambda i, v: v * 0.5 + i + 1)),
    # while: a traced trip count (fori_loop with traced bounds), a predicate of the carry
    Case("while", "fori_loop-traced", lambda n: lax.fori_loop(0, n, lambda i, v: v * 1.5 + i, fg.ones(3)),
         (I(lo=0, hi=5),), lambda n: counted_ref(n, np.ones(3), lambda i, v: v * 1.5 + i)),
    Case("while", "predicate", lambda x: lax.while_loop(lambda v: v.sum() < 100, lambda v: v * 2 + 1, x),
         (I(3, lo=1, hi=9),), lambda x: while_ref(lambda v: v.sum() < 100, lambda v: v * 2 + 1, x)),
    # cond: pred, integer pred, switch (clamped), branches closing over different values
    Case("cond", "pred", lambda p, x: lax.cond(p, lambda x: fg.sin(x), lambda x: x * 2.0, x), (B(), F(2, 3)),
         lambda p, x: np.sin(x) if p else x * 2.0),
    Case("cond", "i32-pred", lambda p, x: lax.cond(p, lambda x: x - 1, lambda x: x * 3, x), (I(), I(4)),
         lambda p, x: x - 1 if p != 0 else x * 3),
    Case("cond", "switch-clamped", lambda i, x: lax.switch(i, BRANCHES, x), (I(lo=-2, hi=4), F(3)),
         lambda i, x: BRANCHES_REF[min(max(int(i), 0), 2)](x)),
    Case("cond", "closures", lambda p, x, w: lax.cond(p, lambda: x * w, lambda: w - 1.0), (B(), F(3), F(3)),
         lambda p, x, w: x * w if p else w - 1.0),
)

API_ROWS: tuple[Case, ...] = ()  # composites and argument forms of the public functions

F16_ROWS: tuple[Case, ...] = (  # f16 rows of float primitives
    Case("scan", "f16", lambda h, xs: rnn(h, xs)[1], (H(3), H(3, 3)), rounded(lambda h, xs: rnn_ref(h, xs)[1]),
         **F16),
    Case("while", "f16", lambda n: lax.fori_loop(0, n, lambda i, v: v * 0.5 + 1.0, fg.ones(2, "f16")),
         (I(lo=0, hi=4),), lambda n: counted_ref(n, np.ones(2, np.float16), lambda i, v: v * np.float16(0.5) + 1),
         **F16),
    Case("cond", "f16", lambda p, x: lax.cond(p, lambda x: x * 2.0, lambda x: -x, x), (B(), H(2, 3)),
         lambda p, x: x * np.float16(2) if p else -x),
)

U32_ROWS: tuple[Case, ...] = (  # u32 rows of integer primitives
    Case("scan", "u32", lambda c, xs: lax.scan(lambda c, x: (c + x, c * x), c, xs)[1], (U(), U(4)),
         lambda c, xs: np.array([(c + xs[:k].sum()) * xs[k] for k in range(4)], np.uint32)),
    Case("while", "u32", lambda n: lax.while_loop(lambda v: v < n, lambda v: v * 2 + 1, fg.asarray(1, "u32")),
         (U(lo=0, hi=50),), lambda n: while_ref(lambda v: v < n, lambda v: v * 2 + 1, np.uint32(1))),
    Case("cond", "u32", lambda i, x: lax.switch(i, [lambda x: x + 1, lambda x: x * 2], x), (U(), U(3)),
         lambda i, x: x + 1 if i == 0 else x * 2),
)
