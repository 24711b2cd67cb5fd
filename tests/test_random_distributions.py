"""fg.random's distributions beyond uniform and normal: JAX's values for the same keys (each
written with JAX's transform of the same draws and JAX's splits of the key), the same samples
eagerly and compiled to WGSL, the rejection samplers' moments, and errors that name the function."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import fgrad as fg

fr = fg.random
SEEDS = (0, 2**32 + 7)
ALPHAS = np.float32([0.3, 1.0, 2.5, 7.0])
BIN_N = np.float32([[0.0], [4.0], [7.5], [60.0], [2500.0], [-1.0], [np.nan]])
BIN_P = np.float32([0.0, 0.05, 0.3, 0.5, 0.8, 1.0, np.nan, -0.2, 1.5])

# name: (draw from a key, given the module, fg.random or jax.random, whose names and signatures
# are the same; whether JAX's values are matched bit for bit, else to f32 rounding (tolerance
# rtol, atol): what passes through log, tan, erfinv or pow rounds in NumPy, XLA and WGSL alike
# only to the last place or two)
Row = tuple[Callable, bool, float, float]
ROWS: dict[str, Row] = {
    "cauchy": (lambda m, k: m.cauchy(k, (7, 3)), False, 3e-7, 0),  # XLA's f32 tan is not NumPy's everywhere
    "cauchy-f16": (lambda m, k: m.cauchy(k, (9,), "float16"), True, 0, 0),
    "logistic": (lambda m, k: m.logistic(k, (20,)), False, 2e-6, 1e-6),
    "lognormal": (lambda m, k: m.lognormal(k, np.float32([0.5, 2.0]), (10, 2)), False, 2e-6, 0),
    "lognormal-default": (lambda m, k: m.lognormal(k), False, 2e-6, 0),
    "pareto": (lambda m, k: m.pareto(k, 3.0, (20,)), False, 2e-6, 0),
    "pareto-shape-of-b": (lambda m, k: m.pareto(k, np.float32([1.0, 4.0])), False, 2e-6, 0),
    "weibull_min": (lambda m, k: m.weibull_min(k, 2.0, 1.5, (20,)), False, 2e-6, 0),
    "weibull_min-broadcast": (lambda m, k: m.weibull_min(k, np.float32([1, 3]), 0.7, (5, 1)), False, 2e-6, 0),
    "rayleigh": (lambda m, k: m.rayleigh(k, np.float32([[1.0], [3.0]]), (2, 6)), False, 2e-6, 0),
    "maxwell": (lambda m, k: m.maxwell(k, (4, 5)), False, 2e-6, 0),
    "double_sided_maxwell": (lambda m, k: m.double_sided_maxwell(k, 1.0, 2.0, (20,)), False, 2e-6, 1e-6),
    # JAX's shape is `shape` + the parameters' shape, the latter alone where shape is ()
    "double_sided_maxwell-params": (lambda m, k: m.double_sided_maxwell(k, np.float32([0, 5]), 2.0), False, 2e-6, 1e-6),
    "double_sided_maxwell-both": (lambda m, k: m.double_sided_maxwell(k, 0.0, np.float32([1, 2]), (3,)),
                                  False, 2e-6, 1e-6),
    "triangular": (lambda m, k: m.triangular(k, -1.0, np.float32([0.0, 0.5, 1.5]), 2.0, (6, 3)), True, 0, 0),
    # x = mu + mu^2 y / 2 - mu / 2 sqrt(...) cancels: its rounding is amplified
    "wald": (lambda m, k: m.wald(k, np.float32([0.5, 1.5]), (10, 2)), False, 2e-5, 1e-6),
    "geometric": (lambda m, k: m.geometric(k, np.float32([0.05, 0.3, 0.9]), (8, 3)), True, 0, 0),
    # lam below 10 (Knuth's), from 10 up (Hormann's), 0, and negative or NaN (-1)
    "poisson": (lambda m, k: m.poisson(k, np.float32([0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 300.0, 1e4, -1.0, np.nan]),
                                       (7, 10)), True, 0, 0),
    "poisson-scalar": (lambda m, k: m.poisson(k, 40.0, (30,)), True, 0, 0),
    # n q <= 10 (inversion) and above (BTRS rejection) for q = min(p, 1 - p), on both sides of 1/2,
    # and the edges: n = 0, p = 0 or 1, a fractional n (its floor), NaN for a negative or NaN n and
    # for p NaN or outside [0, 1]
    "binomial": (lambda m, k: m.binomial(k, BIN_N, BIN_P), True, 0, 0),
    "binomial-rejection": (lambda m, k: m.binomial(k, np.float32([25, 400, 1e4]), np.float32([[0.45], [0.93]]),
                                                   (5, 2, 3)), True, 0, 0),
    # enough BTRS draws that a wrong constant in its bounds changes some accepted proposals
    "binomial-many": (lambda m, k: m.binomial(k, np.float32([60, 300, 5000]),
                                              np.float32([[0.35], [0.5], [0.8], [0.93]]), (200, 4, 3)), True, 0, 0),
    "binomial-f16": (lambda m, k: m.binomial(k, 50, np.float16([0.1, 0.6]), (4, 2), "float16"), True, 0, 0),
    "multinomial": (lambda m, k: m.multinomial(k, np.float32([6, 500]), np.float32([[0.2, 0.0, 0.5, 0.3],
                                                                                   [0.1, 0.2, 0.3, 0.4]])),
                    True, 0, 0),
    # JAX reads `shape` as the whole shape, categories last; p need not sum to 1
    "multinomial-shape": (lambda m, k: m.multinomial(k, np.float32([[30], [900]]), np.float32([2.0, 1.0, 1.0]),
                                                     shape=(2, 4, 3), dtype="int32"), True, 0, 0),
    "rademacher": (lambda m, k: m.rademacher(k, (30,)), True, 0, 0),
    "rademacher-f32": (lambda m, k: m.rademacher(k, (3, 4), "float32"), True, 0, 0),
    "gamma": (lambda m, k: m.gamma(k, ALPHAS, (5, 4)), False, 4e-6, 0),
    "loggamma": (lambda m, k: m.loggamma(k, np.float32([[0.01], [0.3], [2.5], [30.0]]) * np.ones(3, np.float32)),
                 False, 4e-6, 1e-6),
    "beta": (lambda m, k: m.beta(k, 0.5, np.float32([0.7, 2.0, 9.0]), (4, 3)), False, 4e-6, 1e-7),
    "dirichlet": (lambda m, k: m.dirichlet(k, np.float32([[0.5, 1.0, 3.0], [4.0, 4.0, 0.2]]), (3, 2)),
                  False, 4e-6, 1e-7),
    "chisquare": (lambda m, k: m.chisquare(k, np.float32([[1.0], [4.0]]), (2, 5)), False, 4e-6, 0),
    "f": (lambda m, k: m.f(k, 3.0, 12.0, (5, 2)), False, 4e-6, 0),  # JAX divides by dfden of the same rank only
    "t": (lambda m, k: m.t(k, np.float32([2.0, 4.0, 30.0])), False, 4e-6, 1e-7),
    "generalized_normal": (lambda m, k: m.generalized_normal(k, 1.5, (12,)), False, 4e-6, 1e-7),
    "ball": (lambda m, k: m.ball(k, 3, 1.5, (4,)), False, 4e-6, 1e-7),
}
# the rows compiled to WGSL: every distribution once (each rejection loop compiles for seconds
# on llvmpipe), one row with its parameters traced
COMPILED = ["cauchy", "logistic", "lognormal", "pareto", "weibull_min-broadcast", "rayleigh", "maxwell",
            "double_sided_maxwell-both", "triangular", "wald", "geometric", "poisson", "rademacher", "gamma",
            "loggamma", "beta", "dirichlet", "chisquare", "f", "t", "generalized_normal", "ball", "binomial",
            "multinomial"]
# the samplers test_random.py covers; every other name of fg.random.__all__ needs a row here
ELSEWHERE = {"PRNGKey", "bernoulli", "bits", "categorical", "choice", "exponential", "fold_in", "gumbel", "key",
             "key_data", "laplace", "normal", "permutation", "randint", "split", "threefry2x32",
             "truncated_normal", "uniform", "wrap_key_data"}
KEY_FUNCTIONS = {"clone", "key_impl"}  # test_key_functions_as_jax's
FACTORED = {"multivariate_normal", "orthogonal"}  # through linalg's factorizations: tests at the end


def test_every_distribution_has_rows():
    named = {row.split("-")[0] for row in ROWS}
    assert set(fr.__all__) - ELSEWHERE - KEY_FUNCTIONS - FACTORED == named
    assert {row.split("-")[0] for row in COMPILED} == named


@pytest.mark.parametrize("name", sorted(ROWS))
def test_values_equal_jax(name):
    jax = pytest.importorskip("jax")
    sample, exact, rtol, atol = ROWS[name]
    draw = jax.jit(lambda key: sample(jax.random, key))  # one XLA program, where eagerly each op compiles its own
    for seed in SEEDS:
        ours, theirs = sample(fr, fr.PRNGKey(seed)), np.asarray(draw(jax.random.PRNGKey(seed)))
        assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape), (seed, ours.dtype, theirs.dtype)
        if exact:
            np.testing.assert_array_equal(ours, theirs, err_msg=f"seed {seed}")
        else:
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=f"seed {seed}")


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_gives_the_eager_samples(name):
    sample, _, rtol, atol = ROWS[name]
    draw = fg.jit(lambda k: sample(fr, k))
    for seed in (1, 2):  # one program, two keys
        key = fr.PRNGKey(seed)
        eager, on_device = sample(fr, key), np.asarray(draw(key))
        assert (on_device.dtype, on_device.shape) == (eager.dtype, eager.shape)
        if name in ("rademacher", "geometric", "poisson"):  # integers: a floor may flip where log rounds otherwise
            assert np.abs(on_device.astype(np.int64) - eager).max(initial=0) <= (name != "rademacher")
        elif name in ("binomial", "multinomial"):  # counts, as floats with NaN and inf: likewise
            np.testing.assert_allclose(on_device, eager, rtol=0, atol=1)
        else:
            np.testing.assert_allclose(on_device, eager, rtol=max(rtol, 4e-6), atol=max(atol, 1e-6))


def test_traced_parameters():
    draw = fg.jit(lambda k, a, b: (fr.gamma(k, a), fr.triangular(k, a, b, 9.0)))
    a, b = np.float32([0.4, 2.0, 5.0]), np.float32([1.0, 3.0, 8.0])
    key = fr.PRNGKey(5)
    for ours, eager in zip(draw(key, a, b), (fr.gamma(key, a), fr.triangular(key, a, b, 9.0))):
        np.testing.assert_allclose(np.asarray(ours), eager, rtol=4e-6, atol=1e-7)


# ---------------------------------------------------------------------------
# Moments of the rejection samplers and what builds on them
# ---------------------------------------------------------------------------

N = 4000
KEY = fr.PRNGKey(7)


def _check_mean_var(x: np.ndarray, mean: Any, var: Any = None) -> None:
    """Sample means within 5 standard errors, sample variances within 5 of their own (from the
    sample's fourth central moments), along axis 0."""
    x = x.astype(np.float64)
    n = x.shape[0]
    assert np.all(np.abs(x.mean(0) - mean) < 5 * np.sqrt(x.var(0) / n)), (x.mean(0), mean)
    if var is not None:
        m4 = ((x - x.mean(0)) ** 4).mean(0)
        assert np.all(np.abs(x.var(0) - var) < 5 * np.sqrt((m4 - x.var(0) ** 2) / n)), (x.var(0), var)


def test_gamma_moments():
    a = np.float32([0.2, 1.0, 3.5, 40.0])
    x = fr.gamma(KEY, a, (N, 4))
    assert (x >= 0).all()
    _check_mean_var(x, a, a)
    # Marsaglia-Tsang rejects a few percent of its proposals: a loop that kept its first proposal
    # would miss the squeeze's corrections to the tails. P(Gamma(1) > 4) = e^-4.
    tail = np.mean(x[:, 1] > 4.0)
    assert abs(tail - math.exp(-4)) < 5 * math.sqrt(math.exp(-4) / N)
    # loggamma is gamma in log space: the same draws, so exp(loggamma) is gamma's sample
    np.testing.assert_allclose(np.exp(fr.loggamma(KEY, a, (N, 4))), x, rtol=2e-5)


def test_beta_and_dirichlet_moments():
    a, b = 2.0, 5.0
    _check_mean_var(fr.beta(KEY, a, b, (N,)), a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1)))
    alpha = np.float32([0.5, 1.0, 3.0])
    d = fr.dirichlet(KEY, alpha, (N,))
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-5)
    s = alpha.sum()
    _check_mean_var(d, alpha / s, alpha * (s - alpha) / (s * s * (s + 1)))


def test_chisquare_f_t_moments():
    _check_mean_var(fr.chisquare(KEY, 3.0, (N,)), 3.0, 6.0)
    _check_mean_var(fr.f(KEY, 4.0, 10.0, (N,)), 10.0 / 8.0)
    _check_mean_var(fr.t(KEY, 9.0, (N,)), 0.0, 9.0 / 7.0)


def test_generalized_normal_and_ball_moments():
    p = 1.5  # E|x|^p = 1/p for density exp(-|x|^p) / (2 Gamma(1 + 1/p)), and Var |x|^p = 1/p
    g = fr.generalized_normal(KEY, p, (N,))
    _check_mean_var(np.abs(g) ** p, 1 / p, 1 / p)
    pts = fr.ball(KEY, 3, 2.0, (N,))
    assert (np.linalg.norm(pts, axis=-1) <= 1.0 + 1e-6).all()
    _check_mean_var(np.linalg.norm(pts, axis=-1) ** 3, 0.5)  # r^d is uniform in the unit ball


def test_closed_form_moments():
    _check_mean_var(fr.rayleigh(KEY, 2.0, (N,)), 2.0 * math.sqrt(math.pi / 2), (4 - math.pi) / 2 * 4.0)
    _check_mean_var(fr.maxwell(KEY, (N,)), 2 * math.sqrt(2 / math.pi), 3 - 8 / math.pi)
    _check_mean_var(fr.wald(KEY, 1.5, (N,)), 1.5, 1.5**3)
    _check_mean_var(fr.geometric(KEY, 0.3, (N,)), 1 / 0.3, 0.7 / 0.09)
    for lam in (3.0, 30.0):  # Knuth's and Hormann's
        _check_mean_var(fr.poisson(KEY, lam, (N,)), lam, lam)
    _check_mean_var(fr.triangular(KEY, 0.0, 1.0, 4.0, (N,)), 5 / 3, (16 + 1 - 4) / 18)
    _check_mean_var(fr.logistic(KEY, (N,)), 0.0, math.pi**2 / 3)
    assert set(np.unique(fr.rademacher(KEY, (N,))).tolist()) == {-1, 1}


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda: fr.gamma(KEY, 1.0, dtype="i32"), fg.DTypeError, ["gamma", "dtype", "i32"]),
    (lambda: fr.gamma(KEY, np.ones(3, np.float32), (2,)), fg.ShapeError, ["gamma", "(3,)", "(2,)"]),
    (lambda: fr.beta(KEY, np.ones(2, np.float32), np.ones(3, np.float32)), fg.ShapeError, ["beta", "broadcast"]),
    (lambda: fr.dirichlet(KEY, 1.0), fg.ShapeError, ["dirichlet", "alpha"]),
    (lambda: fr.dirichlet(KEY, np.ones((2, 3), np.float32), (4,)), fg.ShapeError, ["dirichlet", "(2,)"]),
    (lambda: fr.geometric(KEY, 0.5, dtype="f32"), fg.DTypeError, ["geometric", "i32", "f32"]),
    (lambda: fr.poisson(KEY, 2.0, dtype="f32"), fg.DTypeError, ["poisson", "i32", "f32"]),
    (lambda: fr.poisson(KEY, np.ones(3, np.float32), (2,)), fg.ShapeError, ["poisson", "(3,)", "(2,)"]),
    (lambda: fr.cauchy(np.zeros(2, np.int32)), fg.DTypeError, ["cauchy", "key"]),
    (lambda: fr.t(KEY, np.ones(2, bool)), fg.DTypeError, ["t:", "df", "bool"]),
    (lambda: fr.generalized_normal(KEY, -1.0), fg.TraceError, ["generalized_normal", "-1.0"]),
    (lambda: fr.ball(KEY, -2), fg.TraceError, ["ball", "-2"]),
    (lambda: fr.weibull_min(KEY, np.ones(2, np.float32), 1.0, (3,)), fg.ShapeError, ["weibull_min", "broadcast"]),
    (lambda: fr.maxwell(KEY, (-1,)), fg.ShapeError, ["maxwell", "negative"]),
])
def test_errors_name_the_function_and_the_values(call, error, words):
    with pytest.raises(error) as e:
        call()
    assert str(e.value).startswith(words[0]) and all(w in str(e.value) for w in words), str(e.value)
    assert "test_random_distributions.py:" in str(e.value)


# ---------------------------------------------------------------------------
# Binomial and multinomial
# ---------------------------------------------------------------------------

def _same_counts(got: Any, want: Any, what: str, atol: float = 0) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), what
    np.testing.assert_allclose(got, want, rtol=0, atol=atol, err_msg=what)  # NaN where want has NaN


@pytest.mark.parametrize("n, p", [
    (np.float32([1, 9, 30]), np.float32([[0.01], [0.3], [0.97]])),  # inversion where n q <= 10
    (np.float32([60, 300, 5000]), np.float32([[0.35], [0.5], [0.8]])),  # BTRS rejection above
], ids=["inversion", "rejection"])
def test_binomial_equals_jax_eager_interpreted_and_compiled(n, p):
    jax = pytest.importorskip("jax")
    inversion = np.minimum(p, 1 - p) * n <= 10
    assert inversion.all() or not inversion.any()

    def sample(k):
        return fr.binomial(k, n, p)

    graph, compiled = fg.trace(sample, fr.PRNGKey(0)), fg.jit(sample)
    for seed in (3, 2**32 + 7):
        key = fr.PRNGKey(seed)
        theirs = np.asarray(jax.random.binomial(jax.random.PRNGKey(seed), n, p))
        _same_counts(sample(key), theirs, f"eager, seed {seed}")
        _same_counts(fg.interpret(graph, key), theirs, f"interpret, seed {seed}")
        # where WGSL's log rounds otherwise than XLA's, a floor or ceil may move by one
        _same_counts(compiled(key), theirs, f"compiled, seed {seed}", atol=1)


def test_binomial_edges():
    n = np.float32([0, 5, 5, 5, 5, 5, 5, -1, np.nan, np.inf, np.inf, np.inf, 7.9, 7.9])
    p = np.float32([0.3, 0.0, 1.0, np.nan, -0.1, 1.1, -np.inf, 0.5, 0.5, 0.3, 0.0, 1.0, 1.0, 0.0])
    want = np.float32([0, 0, 5, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.inf, np.inf, np.inf, 7, 0])
    for seed in SEEDS:  # JAX's loop never ends for n = inf with p = 0 or 1; its selects give inf, as here
        _same_counts(fr.binomial(fr.PRNGKey(seed), n, p), want, f"seed {seed}")
    _same_counts(fg.jit(lambda k: fr.binomial(k, n, p))(KEY), want, "compiled")
    # integer n and p broadcast to the shape; dtype f16; shape () from scalars
    x = fr.binomial(KEY, np.int32([3, 50]), np.float32([[0.2], [0.9]]), (4, 2, 2), dtype="float16")
    assert x.dtype == np.float16 and x.shape == (4, 2, 2)
    assert ((x >= 0) & (x <= np.float16([3, 50]))).all() and (x == np.floor(x)).all()
    assert fr.binomial(KEY, 10, 0.5).shape == ()
    # every count is 0 or n at p = 0 or 1, however many trials
    assert (fr.binomial(KEY, 1e6, np.float32([[0.0], [1.0]]), (2, 5)) == np.float32([[0.0], [1e6]])).all()


def test_multinomial_counts_and_keys():
    jax = pytest.importorskip("jax")
    p = np.float32([0.5, 0.0, 0.2, 0.3])
    x = fr.multinomial(KEY, np.float32([0, 7, 800]), p, shape=(3, 4))
    np.testing.assert_array_equal(x.sum(-1), [0, 7, 800])
    assert (x[:, 1] == 0).all()
    # category i is binomial(split(key, 4)[i], trials left, p_i / (p_i + ... + p_last)), as JAX's
    keys, left = fr.split(KEY, 4), np.float32([0, 7, 800])
    for i in range(4):
        ratio = p[i] / p[i:].sum(dtype=np.float32)
        np.testing.assert_array_equal(x[:, i], fr.binomial(keys[i], left, np.clip(ratio, 0, 1)))
        left = left - x[:, i]
    empty = fr.multinomial(KEY, 5, np.zeros((2, 0), np.float32))
    assert empty.shape == np.asarray(jax.random.multinomial(jax.random.PRNGKey(0), 5, np.zeros((2, 0)))).shape
    # unroll is JAX's scan's: any positive int or bool, the same samples
    np.testing.assert_array_equal(fr.multinomial(KEY, 9.0, p, unroll=True), fr.multinomial(KEY, 9.0, p))


def test_binomial_and_multinomial_traced_parameters():
    n, p = np.float32([3, 40, 700]), np.float32([0.25, 0.6, 0.5])
    draw = fg.jit(lambda k, n, p: (fr.binomial(k, n, p), fr.multinomial(k, n, fg.numpy.stack([p, 1 - p], -1))))
    for ours, eager in zip(draw(KEY, n, p), (fr.binomial(KEY, n, p), fr.multinomial(KEY, n, np.stack([p, 1 - p], -1)))):
        _same_counts(ours, eager, "traced n and p", atol=1)


def test_binomial_and_multinomial_moments():
    n, p = np.float32([6, 12, 200, 300, 1e4]), np.float32([0.3, 0.8, 0.4, 0.9, 0.002])  # inversion, BTRS, both sides
    _check_mean_var(fr.binomial(KEY, n, p, (N, 5)), n * p, n * p * (1 - p))
    _check_mean_var(fr.binomial(KEY, 9.7, 0.5, (N,)), 4.5, 2.25)  # nine whole trials
    probs = np.float32([0.1, 0.25, 0.05, 0.6])
    x = fr.multinomial(KEY, 150, probs, shape=(N, 4))
    np.testing.assert_array_equal(x.sum(-1), 150)
    _check_mean_var(x, 150 * probs, 150 * probs * (1 - probs))
    # counts covary as -n p_i p_j; a sample covariance's standard error is about sqrt((var_i var_j + cov^2) / N)
    cov, var = -150 * probs[0] * probs[3], 150 * probs * (1 - probs)
    assert abs(np.cov(x[:, 0], x[:, 3])[0, 1] - cov) < 5 * math.sqrt((var[0] * var[3] + cov**2) / N)


def test_key_functions_as_jax():
    jax = pytest.importorskip("jax")
    keys = fr.split(KEY, (2, 3))
    np.testing.assert_array_equal(fr.clone(keys), keys)
    np.testing.assert_array_equal(fr.uniform(fr.clone(KEY), (5,)), fr.uniform(KEY, (5,)))
    np.testing.assert_array_equal(np.asarray(fg.jit(fr.clone)(KEY)), KEY)
    assert fr.key_impl(keys) == fr.key_impl(KEY) == jax.random.key_impl(jax.random.PRNGKey(7)) == "threefry2x32"
    np.testing.assert_array_equal(fr.key(7, impl="threefry2x32"), fr.PRNGKey(7))
    np.testing.assert_array_equal(fr.wrap_key_data(keys, impl="threefry2x32"), keys)
    np.testing.assert_array_equal(fr.PRNGKey(7, impl="threefry2x32"), jax.random.PRNGKey(7))


@pytest.mark.parametrize("call, error, words", [
    (lambda: fr.binomial(KEY, 5, 0.5, dtype="i32"), fg.DTypeError, ["binomial", "dtype", "i32"]),
    (lambda: fr.binomial(KEY, np.ones(3, np.float32), 0.5, (2,)), fg.ShapeError, ["binomial", "(3,)", "(2,)"]),
    (lambda: fr.binomial(KEY, np.ones(2, np.float32), np.ones(3, np.float32)), fg.ShapeError,
     ["binomial", "broadcast"]),
    (lambda: fr.binomial(KEY, 5, np.ones(2, bool)), fg.DTypeError, ["binomial", "p", "bool"]),
    (lambda: fr.binomial(KEY, np.ones(2, bool), 0.5), fg.DTypeError, ["binomial", "n", "bool"]),
    (lambda: fr.binomial(np.zeros(2, np.int32), 5, 0.5), fg.DTypeError, ["binomial", "key"]),
    (lambda: fr.multinomial(KEY, 5, 0.5), fg.ShapeError, ["multinomial", "categories"]),
    (lambda: fr.multinomial(KEY, np.ones(3, np.float32), np.ones(2, np.float32)), fg.ShapeError,
     ["multinomial", "n (3,)", "()"]),
    (lambda: fr.multinomial(KEY, 5, np.ones(3, np.float32), shape=(2,)), fg.ShapeError,
     ["multinomial", "p (3,)", "(2,)"]),
    (lambda: fr.multinomial(KEY, 5, np.ones(3, np.float32), shape=(-1, 3)), fg.ShapeError,
     ["multinomial", "negative"]),
    (lambda: fr.multinomial(KEY, 5, np.ones(3, np.float32), unroll=0), fg.TraceError, ["multinomial", "unroll", "0"]),
    (lambda: fr.multinomial(KEY, 5, np.ones(3, np.float32), dtype=bool), fg.DTypeError, ["multinomial", "dtype"]),
    (lambda: fr.clone(np.zeros(3, np.uint32)), fg.DTypeError, ["clone", "u32[..., 2]"]),
    (lambda: fr.key_impl(np.zeros(2, np.float32)), fg.DTypeError, ["key_impl", "f32"]),
    (lambda: fr.wrap_key_data(KEY, impl="rbg"), fg.TraceError, ["wrap_key_data", "'rbg'"]),
    (lambda: fr.key(0, impl="unsafe_rbg"), fg.TraceError, ["key", "'unsafe_rbg'"]),
])
def test_binomial_multinomial_and_key_errors(call, error, words):
    test_errors_name_the_function_and_the_values(call, error, words)


MVN_MEAN = np.float32([1.0, -2.0, 0.5])
MVN_COV = np.float32([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]])


@pytest.mark.parametrize("mean, cov, shape", [
    (MVN_MEAN, MVN_COV, None), (MVN_MEAN, MVN_COV, (4, 2)), (MVN_MEAN, np.stack([MVN_COV, 3 * MVN_COV]), None),
    (np.stack([MVN_MEAN, -MVN_MEAN]), MVN_COV, (5, 2)),
])
def test_multivariate_normal_by_cholesky_is_jax_s(mean, cov, shape):
    """The default method gives JAX's samples: the same normal draws through the same factor."""
    jax = pytest.importorskip("jax")
    for seed in SEEDS:
        got = fr.multivariate_normal(fr.PRNGKey(seed), mean, cov, shape)
        want = jax.random.multivariate_normal(jax.random.PRNGKey(seed), mean, cov, shape)
        np.testing.assert_allclose(got, np.asarray(want), rtol=2e-6, atol=2e-6)
    compiled = fg.jit(lambda k: fr.multivariate_normal(k, mean, cov, shape))(fr.PRNGKey(1))
    np.testing.assert_allclose(compiled, fr.multivariate_normal(fr.PRNGKey(1), mean, cov, shape), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
def test_multivariate_normal_has_the_asked_moments(method):
    """Each method's factor F F^T = cov: 20,000 samples have the mean and covariance asked (to
    five standard errors)."""
    x = np.asarray(fr.multivariate_normal(fr.PRNGKey(5), MVN_MEAN, MVN_COV, (20000,), method=method), np.float64)
    se = np.sqrt(np.diag(MVN_COV) / len(x))
    assert np.all(np.abs(x.mean(0) - MVN_MEAN) < 5 * se), (method, x.mean(0))
    cov = np.cov(x.T)
    assert np.abs(cov - MVN_COV).max() < 5 * np.sqrt(2 * np.diag(MVN_COV).max() ** 2 / len(x)), (method, cov)


@pytest.mark.parametrize("n, m, shape", [(4, None, ()), (5, 3, (2,)), (2, 6, ()), (1, 1, (3,))])
def test_orthogonal_is_jax_s_and_orthonormal(n, m, shape):
    """Q of a normal matrix signed by R's diagonal: unique for a full-rank matrix, so JAX's
    values whatever signs the factorization picks, with orthonormal columns (rows where n < m)."""
    jax = pytest.importorskip("jax")
    got = np.asarray(fr.orthogonal(fr.PRNGKey(3), n, shape, m=m), np.float64)
    want = jax.random.orthogonal(jax.random.PRNGKey(3), n, shape, m=m)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-5)
    k = min(n, n if m is None else m)
    gram = got.swapaxes(-1, -2) @ got if n >= (n if m is None else m) else got @ got.swapaxes(-1, -2)
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(k), gram.shape), atol=1e-5)


@pytest.mark.parametrize("call, error, words", [
    (lambda: fr.multivariate_normal(KEY, MVN_MEAN, MVN_COV, method="qr"), fg.ShapeError,
     ["multivariate_normal", "method", "'qr'"]),
    (lambda: fr.multivariate_normal(KEY, MVN_MEAN, MVN_COV[:2, :2]), fg.ShapeError,
     ["multivariate_normal", "(3,)", "(2, 2)"]),
    (lambda: fr.multivariate_normal(KEY, MVN_MEAN, np.stack([MVN_COV] * 3), (2,)), fg.ShapeError,
     ["multivariate_normal", "(3,)", "(2,)"]),
    (lambda: fr.multivariate_normal(KEY, MVN_MEAN, MVN_COV, dtype="i32"), fg.DTypeError, ["multivariate_normal", "i32"]),
    (lambda: fr.orthogonal(KEY, 2.5), fg.TraceError, ["orthogonal", "n", "2.5"]),
    (lambda: fr.orthogonal(KEY, 3, m=-1), fg.TraceError, ["orthogonal", "m", "-1"]),
])
def test_multivariate_normal_and_orthogonal_errors(call, error, words):
    test_errors_name_the_function_and_the_values(call, error, words)
