"""fg.scipy.stats against jax.scipy.stats: every function of every distribution at seeded points
and at the edges of its support (and at invalid parameters), eagerly; one function of each
distribution compiled to WGSL; derivatives of log densities against finite differences; the
functions of data (mode, rankdata, sem) and gaussian_kde likewise; the refusals."""

from __future__ import annotations

import jax.scipy.stats as jst
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, same, table_params

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

ST = fg.scipy.stats
inf, nan = np.inf, np.nan
d = Draws(47)


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


N = 16
X, LOC, SCALE = d.f32(N, lo=-4.0, hi=4.0), d.f32(N, lo=-1.0, hi=1.0), d.f32(N, lo=0.3, hi=3.0)
POS = d.f32(N, lo=0.05, hi=8.0)
Q = d.f32(N, lo=0.001, hi=0.999)
SHAPE = d.f32(N, lo=0.3, hi=6.0)
EDGE_X = f32(-inf, -3.0, -1.0, -0.0, 0.0, 1e-20, 0.5, 1.0, 2.5, 1e30, inf, nan)
EDGE_Q = f32(-0.5, 0.0, 1e-30, 1e-7, 0.5, 0.9999, 1.0, 1.5, nan)
BAD_SCALE = f32(1.0, 2.0, 0.0, -1.0, nan, inf, 1.0, 2.0, -0.5, 1.0, 3.0, 1.0)
COUNTS = d.f32(N, lo=0.0, hi=12.0).round()
K_EDGES = f32(-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, inf, nan)
P = d.f32(N, lo=0.02, hi=0.98)

# The functions of each distribution, by the kind of argument their first one is.
LOCATION_SCALE = {
    "norm": "logpdf pdf cdf logcdf sf logsf | ppf isf", "logistic": "logpdf pdf cdf sf | ppf isf",
    "laplace": "logpdf pdf cdf |", "cauchy": "logpdf pdf cdf logcdf sf logsf | ppf isf",
    "expon": "logpdf pdf cdf logcdf sf logsf | ppf", "uniform": "logpdf pdf cdf | ppf",
    "gumbel_r": "logpdf pdf logcdf cdf sf logsf | ppf", "gumbel_l": "logpdf pdf logcdf cdf sf logsf | ppf",
}


def _rows() -> list[tuple]:
    rows = []

    def row(dist: str, fn: str, arg_sets: list, rtol: float = 2e-5, atol: float = 1e-6) -> None:
        rows.append((f"{dist}.{fn}", getattr(getattr(ST, dist), fn), getattr(getattr(jst, dist), fn), arg_sets,
                     rtol, atol))

    for dist, spec in LOCATION_SCALE.items():
        of_x, of_q = (part.split() for part in spec.split("|"))
        for fn in of_x:
            row(dist, fn, [(X, LOC, SCALE), (EDGE_X,), (EDGE_X, 0.5, BAD_SCALE)], 2e-5, 1e-6)
        for fn in of_q:
            row(dist, fn, [(Q, LOC, SCALE), (EDGE_Q,)], 2e-5, 1e-6)
    for fn in "logpdf pdf cdf logcdf sf logsf".split():
        row("gamma", fn, [(POS, SHAPE, LOC, SCALE), (EDGE_X, 1.5),
                          (f32(0.0, 0.0, 2.0, 2.0, -1.0), f32(0.5, 1.0, 0.0, -1.0, 2.0))], 1e-4, 1e-6)
        row("chi2", fn, [(POS * 2, SHAPE * 2, LOC, SCALE), (EDGE_X, 3.0)], 1e-4, 1e-6)
        row("beta", fn, [(d.f32(N, lo=0.01, hi=0.99), SHAPE, SHAPE[::-1]),
                         (f32(-inf, -1, 0, 0.25, 0.5, 1, 2, inf, nan), 2.0, 3.0),
                         (f32(0.5, 0.5, 0.5, 0.0, 1.0), f32(0.0, -1.0, 2.0, 0.5, 0.5), f32(2.0, 2.0, 0.0, 2.0, 2.0))],
            1e-4, 1e-6)
    for fn in ("logpdf", "pdf"):
        row("t", fn, [(X, SHAPE, LOC, SCALE), (EDGE_X, 3.0)])
        row("vonmises", fn, [(X, SHAPE), (EDGE_X, f32(1, 1, 1, 1, 0, -1, 1e-3, 50, 1, 1, 1, nan))], 2e-5, 1e-6)
        row("wrapcauchy", fn, [(d.f32(N, lo=0.0, hi=6.28), P),
                               (EDGE_X, f32(0.5, 0.5, 0.5, 0.5, 0, 1, 0.5, 0.5, -1, 0.5, 0.5, 0.5))])
    for fn in "logpdf pdf cdf logcdf sf logsf ppf".split():
        first = Q if fn == "ppf" else X + 3.0
        row("pareto", fn, [(first, SHAPE, LOC, SCALE), (EDGE_Q, 2.0) if fn == "ppf" else (EDGE_X, 2.0)], 2e-5, 1e-6)
    for fn in ("logpdf", "pdf", "cdf"):
        row("gennorm", fn, [(X, SHAPE), (EDGE_X, 1.5)], 1e-4, 1e-6)
    for fn in "logpdf pdf logcdf cdf logsf sf".split():
        row("truncnorm", fn, [(X, f32(-1.0), f32(2.0), LOC, SCALE), (EDGE_X, -2.0, 1.5),
                              (f32(0.5, 3.0, -9.0, 9.5, 0.0), f32(-10.0, 2.0, -12.0, 9.0, 1.0),
                               f32(-5.0, 8.0, -8.0, 12.0, 1.0))],
            5e-5, 1e-6)
    for fn in ("logpmf", "pmf"):
        row("poisson", fn, [(COUNTS, POS, 0.0), (K_EDGES, 2.5), (COUNTS, POS, 1.0)], 5e-5, 1e-6)
        row("bernoulli", fn, [(np.round(Q), P), (K_EDGES, 0.3), (f32(0.0, 1.0, 0.0, 1.0), f32(0.0, 0.0, 1.0, 1.0))])
        row("geom", fn, [(COUNTS + 1, P), (K_EDGES, 0.3)])
        row("binom", fn, [(COUNTS, COUNTS + 3, P), (K_EDGES, 5.0, 0.4),
                          (f32(0.0, 0.0, 3.0), f32(0.0, 3.0, 3.0), f32(0.5, 0.0, 1.0))],
            5e-5, 1e-6)
        row("nbinom", fn, [(COUNTS, SHAPE, P), (K_EDGES, 2.0, 0.4)], 5e-5, 1e-6)
        row("betabinom", fn, [(COUNTS, COUNTS + 3, SHAPE, SHAPE[::-1]), (K_EDGES, 5.0, 2.0, 3.0),
                              (f32(1.0, 1.0, 1.0, 0.0), f32(-1.0, 3.0, 3.0, 0.0), f32(2.0, 0.0, 2.0, 1.0),
                               f32(2.0, 2.0, -1.0, 1.0))],
            5e-5, 1e-6)
    row("poisson", "cdf", [(COUNTS, POS), (K_EDGES[K_EDGES != inf], 2.5)], 5e-5, 1e-6)  # k = inf: test_scipy_special
    row("poisson", "entropy", [(f32(0.0, 0.5, 3.0, 9.5, 10.0, 40.0, 99.0, 150.0, 1e4),)], 2e-5, 1e-6)
    row("bernoulli", "cdf", [(K_EDGES, 0.3), (f32(0.5, 0.5, 0.5, nan), f32(-0.1, 1.1, nan, 0.5))])
    row("bernoulli", "ppf", [(EDGE_Q, 0.3), (f32(0.5, 0.5, 0.5), f32(-0.1, 1.1, nan))])
    counts = np.int32([[2, 0, 3], [1, 1, 3]])
    probs = f32(0.2, 0.3, 0.5)
    for fn in ("logpmf", "pmf"):
        row("multinomial", fn, [(counts[0], np.int32(5), probs), (counts, np.int32(10), probs),
                                (counts[0], np.int32(4), probs)])
    simplex = f32(0.2, 0.5, 0.3)
    alpha = f32(1.5, 2.0, 0.7)
    for fn in ("logpdf", "pdf"):
        row("dirichlet", fn, [(simplex, alpha), (simplex[:2], alpha),
                              (np.stack([simplex, f32(0.6, 0.5, -0.1)], 1), alpha),
                              (f32(0.2, 0.5, 0.4), alpha)])
    cov = f32(2.0, 0.5, 0.1, 0.5, 1.0, 0.2, 0.1, 0.2, 0.8).reshape(3, 3)
    for fn in ("logpdf", "pdf"):
        row("multivariate_normal", fn, [(d.f32(3), d.f32(3), cov), (d.f32(4, 3), d.f32(3), cov),
                                        (d.f32(4, 3), d.f32(3), 1.5),
                                        (d.f32(5), 0.5, 2.0)], 2e-5, 1e-6)
    return rows


ROWS = _rows()
PARAMS = table_params([r[:4] for r in ROWS])


@pytest.mark.parametrize("ours, theirs, args, name", PARAMS)
def test_values_match_jax_scipy_stats(ours, theirs, args, name):
    rtol, atol = next(r[4:] for r in ROWS if r[0] == name)
    args = args if name.split(".")[0] in VECTORS else cycled(args)
    # JAX eagerly: under jax.jit XLA's fused code departs from it at infinities (cauchy.logcdf(-inf) is -18.9)
    same(ours(*args), jax_call(theirs, *args, jit=False), name, rtol, atol, oracle="jax.scipy.stats")


VECTORS = {"multinomial", "dirichlet", "multivariate_normal"}  # their last axes are vectors: kept whole


def cycled(args: tuple) -> tuple:
    """The arguments with every 1-D array cycled to N entries: one shape for all of a function's
    argument sets, so that JAX compiles each function once, not once per set."""
    return tuple(np.resize(a, N) if isinstance(a, np.ndarray) and a.ndim == 1 else a for a in args)


def test_every_function_of_jax_scipy_stats_has_a_row():
    """A distribution's function missing here is one fgrad lacks, or one left untested."""
    import jax.scipy.stats as stats_module
    tested = {r[0] for r in ROWS}
    for name in DATA_FUNCTIONS:
        assert name in {r[0].split(" ")[0] for r in DATA_ROWS}, f"{name}: no row"
        assert getattr(ST, name).__doc__, f"{name}: no docstring"
    for kde_name in (n for n in dir(stats_module.gaussian_kde) if not n.startswith("_")):
        assert kde_name in KDE_TESTED, f"gaussian_kde.{kde_name}: no test"
        member = getattr(ST.gaussian_kde, kde_name)  # the five arrays are slots: no docstring of their own
        assert kde_name in _KDE_ARRAYS or member.__doc__, f"gaussian_kde.{kde_name}: no docstring"
    for dist in (n for n in dir(stats_module) if not n.startswith("_") and n not in DATA_FUNCTIONS + ["gaussian_kde"]):
        names = [n for n in dir(getattr(stats_module, dist)) if not n.startswith("_")]
        for fn in names:
            assert f"{dist}.{fn}" in tested, f"{dist}.{fn}: no row"
            assert getattr(getattr(ST, dist), fn).__doc__, f"{dist}.{fn}: no docstring"


# One function of each distribution through WGSL (llvmpipe compiles slowly): its seeded arguments.
COMPILED = ["norm.logcdf", "logistic.logpdf", "laplace.cdf", "cauchy.ppf", "expon.logcdf", "uniform.cdf",
            "gumbel_r.logsf", "gumbel_l.ppf", "gamma.cdf", "chi2.sf", "beta.cdf", "t.logpdf", "vonmises.logpdf",
            "wrapcauchy.logpdf", "pareto.logcdf", "gennorm.logpdf", "truncnorm.logcdf", "poisson.logpmf",
            "bernoulli.logpmf", "geom.logpmf", "binom.logpmf", "nbinom.logpmf", "betabinom.logpmf",
            "multinomial.logpmf", "dirichlet.logpdf", "multivariate_normal.logpdf"]


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_values_match_jax(name):
    _, ours, theirs, arg_sets, rtol, atol = next(r for r in ROWS if r[0] == name)
    args = arg_sets[0]
    got = fg.jit(ours)(*args)
    same(got, ours(*args), f"{name} compiled vs eager", 1e-5, max(atol, 1e-6))
    same(got, jax_call(theirs, *args), f"{name} compiled", max(rtol, 2e-5), max(atol, 1e-6), oracle="jax.scipy.stats")


# (name, function of float arguments, points): reverse-mode derivatives against finite differences
SMOOTH = [
    ("norm.logpdf", ST.norm.logpdf, (0.3, -0.2, 1.4)), ("norm.logcdf", ST.norm.logcdf, (-2.0, 0.1, 0.8)),
    ("logistic.logpdf", ST.logistic.logpdf, (0.7, 0.2, 1.3)), ("cauchy.logpdf", ST.cauchy.logpdf, (0.7, 0.2, 1.3)),
    ("gamma.logpdf", ST.gamma.logpdf, (1.7, 2.5, 0.1, 1.2)), ("beta.logpdf", ST.beta.logpdf, (0.3, 2.0, 3.5)),
    ("chi2.logpdf", ST.chi2.logpdf, (2.5, 3.0)), ("t.logpdf", ST.t.logpdf, (0.6, 4.5, 0.1, 1.3)),
    ("gennorm.logpdf", ST.gennorm.logpdf, (0.6, 1.7)), ("vonmises.logpdf", ST.vonmises.logpdf, (0.6, 2.5)),
    ("truncnorm.logpdf", ST.truncnorm.logpdf, (0.3, -1.0, 2.0, 0.1, 1.2)),
    ("gumbel_r.logpdf", ST.gumbel_r.logpdf, (0.3, 0.1, 1.2)),
    ("poisson.logpmf mu", lambda mu: ST.poisson.logpmf(3.0, mu), (2.5,)),
    # The K - 1 form: perturbing all K components would leave the simplex (-inf).
    ("dirichlet.logpdf", lambda x: ST.dirichlet.logpdf(x, f32(1.5, 2.0, 0.7)), (f32(0.2, 0.5),)),
    ("multivariate_normal.logpdf", lambda x, m: ST.multivariate_normal.logpdf(
        x, m, f32(2.0, 0.5, 0.5, 1.0).reshape(2, 2)), (f32(0.3, -0.4), f32(0.1, 0.2))),
]


@pytest.mark.parametrize("name, fn, point", SMOOTH, ids=[r[0] for r in SMOOTH])
def test_log_density_derivatives_match_finite_differences(name, fn, point):
    fg.check_grads(fn, tuple(np.asarray(p, np.float32) for p in point), order=1)


def test_gamma_cdf_is_differentiable_in_x_and_a_as_jax_s():
    import jax
    x, a = np.float32(2.5), np.float32(1.7)
    for argnum in (0, 1):
        got = fg.grad(ST.gamma.cdf, argnums=argnum)(x, a)
        want = jax_call(jax.grad(jst.gamma.cdf, argnums=argnum), x, a)
        same(np.float32(got), want, f"d gamma.cdf / d arg {argnum}", 1e-5, 1e-7, oracle="jax.grad")


def test_batched_over_vmap():
    mu = d.f32(3, 4, lo=0.5, hi=5.0)
    got = fg.vmap(lambda m: ST.poisson.cdf(3.0, m))(mu)
    same(got, jax_call(lambda m: jst.poisson.cdf(3.0, m), mu), "vmap poisson.cdf", 5e-5, 1e-6, oracle="jax.scipy.stats")


@pytest.mark.parametrize("call, error, words", [
    (lambda: ST.multinomial.logpmf(f32(1, 2), 3, f32(0.5, 0.5)), fg.DTypeError, "multinomial.logpmf: x and n"),
    (lambda: ST.dirichlet.logpdf(f32(0.5, 0.5), f32(1, 1).reshape(1, 2)), fg.ShapeError, "dirichlet.logpdf: `alpha`"),
    (lambda: ST.dirichlet.logpdf(f32(0.2, 0.2, 0.2, 0.4), f32(1, 1)), fg.ShapeError, "dirichlet.logpdf: `x`"),
    (lambda: ST.multivariate_normal.logpdf(f32(0, 0), f32(0, 0), np.eye(3, dtype=np.float32)), fg.ShapeError,
     "incompatible shapes"),
    (lambda: ST.multivariate_normal.logpdf(f32(0), f32(0), f32(1), allow_singular=True), fg.InputError,
     "allow_singular"),
    (lambda: ST.norm.logpdf("x"), fg.DTypeError, "norm.logpdf"),
])
def test_refusals_name_the_function_and_the_user_s_line(call, error, words):
    with pytest.raises(error, match=words) as info:
        call()
    assert "test_scipy_stats.py" in str(info.value)


# --- functions of data and gaussian_kde -------------------------------------------------------------

DATA_FUNCTIONS = ["mode", "rankdata", "sem"]
TIES = f32(3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8)
GRID = np.array([[1, 2, 1, 3, 2, 1], [3, 1, 3, 2, 1, 3], [1, 2, 2, 3, 1, 2]], np.float32)
WITH_NAN = np.where(np.arange(18).reshape(3, 6) % 7 == 3, nan, GRID + d.f32(3, 6)).astype(np.float32)


def _data_rows() -> list[tuple]:
    """(name, ours, JAX's, argument sets, rtol, atol), the name's first word the function's."""
    rows = [
        ("mode", ST.mode, jst.mode, [(GRID,), (np.int32(GRID),), (f32(2, nan, nan, 1, 2, nan).reshape(6, 1),)], 0, 0),
        ("mode axis=1 keepdims", lambda a: ST.mode(a, axis=1, keepdims=True),
         lambda a: jst.mode(a, axis=1, keepdims=True), [(GRID,)], 0, 0),
        ("mode axis=None", lambda a: ST.mode(a, axis=None), lambda a: jst.mode(a, axis=None), [(GRID,), (TIES,)], 0, 0),
        ("rankdata axis=1", lambda a: ST.rankdata(a, axis=1), lambda a: jst.rankdata(a, axis=1), [(WITH_NAN,)], 0, 0),
        ("sem", ST.sem, jst.sem, [(GRID,), (WITH_NAN,)], 2e-6, 1e-7),
        ("sem axis=None ddof=0", lambda a: ST.sem(a, axis=None, ddof=0), lambda a: jst.sem(a, axis=None, ddof=0),
         [(GRID,)], 2e-6, 1e-7),
        ("sem axis=1 keepdims omit", lambda a: ST.sem(a, axis=1, nan_policy="omit", keepdims=True),
         lambda a: jst.sem(a, axis=1, nan_policy="omit", keepdims=True), [(WITH_NAN,), (GRID,)], 2e-6, 1e-7),
    ]
    for method in ("average", "min", "max", "dense", "ordinal"):
        rows.append((f"rankdata {method}", lambda a, m=method: ST.rankdata(a, m),
                     lambda a, m=method: jst.rankdata(a, m), [(TIES,), (GRID,), (np.resize(f32(1, nan), 12),)], 0, 0))
    return rows


DATA_ROWS = _data_rows()


@pytest.mark.parametrize("ours, theirs, args, name", table_params([r[:4] for r in DATA_ROWS]))
def test_functions_of_data_match_jax(ours, theirs, args, name):
    rtol, atol = next(r[4:] for r in DATA_ROWS if r[0] == name)
    same(ours(*args), jax_call(theirs, *args, jit=True), name, rtol, atol, oracle="jax.scipy.stats")


@pytest.mark.parametrize("name", ["mode", "rankdata average", "sem axis=1 keepdims omit"])
def test_functions_of_data_compiled(name):
    _, ours, theirs, arg_sets, rtol, atol = next(r for r in DATA_ROWS if r[0] == name)
    args = arg_sets[-1]
    same(fg.jit(ours)(*args), jax_call(theirs, *args, jit=True), f"{name} compiled", max(rtol, 1e-6), atol,
         oracle="jax.scipy.stats")


def test_sem_derivative_matches_finite_differences():
    fg.check_grads(lambda a: ST.sem(a, axis=1), (GRID + d.f32(3, 6),), order=1)


_KDE_ARRAYS = {"neff", "dataset", "weights", "covariance", "inv_cov"}
KDE_DATA = d.f32(2, 7)
KDE_WEIGHTS = d.f32(7, lo=0.2, hi=1.0)
KDE_POINTS = d.f32(2, 4)
# Every public name of JAX's gaussian_kde is checked by the tests below.
KDE_TESTED = {"d", "n", "neff", "dataset", "weights", "covariance", "inv_cov", "evaluate", "pdf", "logpdf",
              "integrate_gaussian", "integrate_box_1d", "integrate_kde", "resample", "tree_flatten", "tree_unflatten",
              "integrate_box", "set_bandwidth"}


@pytest.mark.parametrize("bw_method", [None, "silverman", 0.7, "callable"])
def test_gaussian_kde_matches_jax(bw_method):
    """The estimator's arrays and every method, weighted 2-D data and unweighted 1-D data."""
    import jax
    bw = (lambda k: 0.5 * k.neff ** -0.1) if bw_method == "callable" else bw_method
    ours, theirs = ST.gaussian_kde(KDE_DATA, bw, KDE_WEIGHTS), jst.gaussian_kde(KDE_DATA, bw, KDE_WEIGHTS)
    assert (ours.d, ours.n) == (theirs.d, theirs.n) == (2, 7)
    for field in sorted(_KDE_ARRAYS):
        same(getattr(ours, field), getattr(theirs, field), f"gaussian_kde.{field}", 2e-5, 1e-6, oracle="jax")
    for method in ("evaluate", "pdf", "logpdf", "__call__"):
        same(getattr(ours, method)(KDE_POINTS), getattr(theirs, method)(KDE_POINTS), method, 2e-5, 1e-7, oracle="jax")
    same(ours(KDE_POINTS[:, 0]), theirs(KDE_POINTS[:, 0]), "one point", 2e-5, 1e-7, oracle="jax")
    mean, cov = f32(0.1, 0.2), f32(0.5, 0.1, 0.1, 0.3).reshape(2, 2)
    same(ours.integrate_gaussian(mean, cov), theirs.integrate_gaussian(mean, cov), "integrate_gaussian", 2e-5, 1e-7,
         oracle="jax")
    other = KDE_DATA[:, :5] + 0.3
    for smaller_first in (True, False):
        a, b = (ST.gaussian_kde(other, bw), ours) if smaller_first else (ours, ST.gaussian_kde(other, bw))
        ja, jb = (jst.gaussian_kde(other, bw), theirs) if smaller_first else (theirs, jst.gaussian_kde(other, bw))
        same(a.integrate_kde(b), ja.integrate_kde(jb), "integrate_kde", 2e-5, 1e-7, oracle="jax")
    same(ours.resample(fg.random.PRNGKey(3), (5,)), theirs.resample(jax.random.PRNGKey(3), (5,)), "resample", 2e-5,
         1e-6, oracle="jax")
    ours_1d, theirs_1d = ST.gaussian_kde(KDE_DATA[0], bw), jst.gaussian_kde(KDE_DATA[0], bw)
    same(ours_1d.integrate_box_1d(-0.5, 1.0), theirs_1d.integrate_box_1d(-0.5, 1.0), "integrate_box_1d", 2e-5, 1e-7,
         oracle="jax")
    same(ours_1d.logpdf(KDE_POINTS[0]), theirs_1d.logpdf(KDE_POINTS[0]), "1-D logpdf", 2e-5, 1e-6, oracle="jax")


def test_gaussian_kde_is_a_pytree_through_jit_and_grad():
    """The estimator passes into a compiled function as its five arrays; its log density
    differentiates in the data as JAX's does."""
    import jax
    kde = ST.gaussian_kde(KDE_DATA, weights=KDE_WEIGHTS)
    leaves, tree = fg.tree_util.tree_flatten(kde)
    assert len(leaves) == 5 and isinstance(fg.tree_util.tree_unflatten(tree, leaves), ST.gaussian_kde)
    same(fg.jit(lambda k, p: k.logpdf(p))(kde, KDE_POINTS), kde.logpdf(KDE_POINTS), "logpdf compiled", 1e-5, 1e-6)
    got = fg.grad(lambda data: fg.numpy.sum(ST.gaussian_kde(data).logpdf(KDE_POINTS)))(KDE_DATA)
    want = jax_call(jax.grad(lambda data: jst.gaussian_kde(data).logpdf(KDE_POINTS).sum()), KDE_DATA)
    same(got, want, "d logpdf / d dataset", 1e-4, 1e-5, oracle="jax.grad")


@pytest.mark.parametrize("call, error, words", [
    (lambda: ST.mode(GRID, nan_policy="omit"), fg.InputError, "mode: nan_policy='omit'"),
    (lambda: ST.mode(GRID, axis=2), fg.ShapeError, "mode"),
    (lambda: ST.rankdata(TIES, "mean"), fg.InputError, "rankdata: unknown method 'mean'"),
    (lambda: ST.rankdata(TIES, nan_policy="sometimes"), fg.InputError, "rankdata: illegal nan_policy"),
    (lambda: ST.sem(GRID, nan_policy="raise"), fg.InputError, "sem: nan_policy='raise'"),
    (lambda: ST.gaussian_kde(f32(1.0)), fg.ShapeError, "gaussian_kde: `dataset`"),
    (lambda: ST.gaussian_kde(KDE_DATA, weights=f32(1, 2)), fg.ShapeError, "gaussian_kde: `weights`"),
    (lambda: ST.gaussian_kde(KDE_DATA, "wide"), fg.InputError, "gaussian_kde: `bw_method`"),
    (lambda: ST.gaussian_kde(KDE_DATA).evaluate(d.f32(3, 2)), fg.ShapeError, "gaussian_kde.evaluate: points"),
    (lambda: ST.gaussian_kde(KDE_DATA).integrate_gaussian(f32(0), f32(1)), fg.ShapeError, "integrate_gaussian"),
    (lambda: ST.gaussian_kde(KDE_DATA).integrate_box_1d(0.0, 1.0), fg.ShapeError, "integrate_box_1d: only"),
    (lambda: ST.gaussian_kde(KDE_DATA[0]).integrate_box_1d(f32(0, 1), 1.0), fg.ShapeError, "must be scalars"),
    (lambda: ST.gaussian_kde(KDE_DATA).integrate_kde(ST.gaussian_kde(KDE_DATA[0])), fg.ShapeError, "integrate_kde"),
    (lambda: ST.gaussian_kde(KDE_DATA).integrate_box(f32(0, 0), f32(1, 1)), fg.InputError, "integrate_box_1d"),
    (lambda: ST.gaussian_kde(KDE_DATA).set_bandwidth("scott"), fg.InputError, "set_bandwidth"),
])
def test_refusals_of_the_functions_of_data(call, error, words):
    with pytest.raises(error, match=words) as info:
        call()
    assert "test_scipy_stats.py" in str(info.value)
