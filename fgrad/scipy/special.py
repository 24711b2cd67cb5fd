"""`jax.scipy.special` as `fg.scipy.special`: gamma and beta functions, complete and incomplete, the
normal distribution's functions, Bessel functions of order 0 and 1, entropies, the Hurwitz zeta
function and polygamma.

Each is written with fgrad's functions as JAX writes it with `jax.numpy` and `jax.lax` (the same
branches, the same values at the edges: poles, zeros, infinities, NaN), so it traces,
differentiates, batches and compiles to WGSL; where JAX gives a function a derivative of its own
(xlogy at x = 0, logit, log_ndtr, erfcx, poch, the incomplete gamma and beta functions) the same
rule is a `custom_jvp` here. Integer and bool arguments compute in f32; arguments of several
dtypes promote as jax.numpy's do.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, InputError, TraceError, name_errors_after
from fgrad.lax import digamma as _digamma, lgamma
from fgrad.numpy import (
    abs, add, astype, broadcast_arrays, divide, equal, erf, erfc, erfinv, exp, expand_dims, expm1, floor, full_like,
    greater, greater_equal, isnan, less, less_equal, log, log1p, logical_and, logical_not, logical_or, logsumexp,
    maximum, minimum, mod, multiply, negative, not_equal, polyval, power, select, sigmoid, sign, signbit, sqrt, square,
    subtract, sum, where, zeros_like,
)
from fgrad.numpy import log_softmax as _log_softmax, softmax as _softmax
from fgrad.numpy.elementwise import bessel_i
from fgrad.numpy.promotion import ArrayLike, _brief, _dtype, _float_dtype, asarray, result_dtype
from fgrad.ir import DType
from fgrad.primitives import polygamma_p
from fgrad.trace import Tensor, bind, user_site
from fgrad.transforms.control_flow import fori_loop
from fgrad.transforms.custom import custom_jvp
from fgrad.transforms.forward import jvp

__all__ = [
    "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
    "expit", "factorial", "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn", "i0", "i0e", "i1", "i1e",
    "kl_div", "log_ndtr", "log_softmax", "loggamma", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "poch",
    "polygamma", "rel_entr", "softmax", "xlog1py", "xlogy", "zeta",
]

Array = Tensor | np.ndarray


def _inexact(*xs: ArrayLike) -> list[Array]:
    """The arguments in the float dtype they promote to (integers and bools: f32)."""
    dtype = _float_dtype(result_dtype(*xs))
    return [asarray(x, dtype) for x in xs]


# --- gamma and beta ---------------------------------------------------------------------------------

def gammaln(x: ArrayLike) -> Array:
    """log|Gamma(x)|: `lax.lgamma` (+inf at 0, at the negative integers and at +-inf)."""
    return lgamma(*_inexact(x))


def digamma(x: ArrayLike) -> Array:
    """psi(x) = Gamma'(x) / Gamma(x): `lax.digamma`."""
    return _digamma(*_inexact(x))


def gammasgn(x: ArrayLike) -> Array:
    """The sign of Gamma(x): -1 where x < 0 lies in (-2k - 1, -2k) or x is -0, NaN at the
    negative integers (whose sign depends on the side a pole is approached from), at -inf and NaN,
    else 1."""
    (x,) = _inexact(x)
    floor_x = floor(x)
    negative_x = less(x, 0.0)
    pole = logical_or(logical_and(negative_x, equal(x, floor_x)), isnan(x))
    below = logical_or(logical_and(negative_x, not_equal(mod(floor_x, 2.0), 0.0)),
                       logical_and(equal(x, 0.0), signbit(x)))
    return select([pole, below], [math.nan, -1.0], full_like(x, 1.0))


def loggamma(x: ArrayLike) -> Array:
    """The principal branch of log Gamma(x) on the reals: gammaln(x) for x > 0, NaN elsewhere."""
    (x,) = _inexact(x)
    return where(greater(x, 0.0), lgamma(x), math.nan)


def gamma(x: ArrayLike) -> Array:
    """Gamma(x) = gammasgn(x) e^gammaln(x): +-inf at +-0, NaN at the negative integers and -inf."""
    (x,) = _inexact(x)
    return multiply(gammasgn(x), exp(lgamma(x)))


def _algdiv(a: Array, b: Array) -> Array:
    """log(Gamma(b) / Gamma(a + b)) for b >= 8 and a <= b (cdflib's algdiv), without the
    cancellation of subtracting two large lgammas."""
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = divide(a, b)
    c = x = divide(h, add(h, 1.0))
    d = add(b, subtract(a, 0.5))
    x2 = multiply(x, x)
    s3 = add(1.0, add(x, x2))  # s_n = (1 - x^n) / (1 - x)
    s5 = add(1.0, add(x, multiply(x2, s3)))
    s7 = add(1.0, add(x, multiply(x2, s5)))
    s9 = add(1.0, add(x, multiply(x2, s7)))
    s11 = add(1.0, add(x, multiply(x2, s9)))
    t = square(divide(1.0, b))
    w = add(multiply(add(multiply(add(multiply(add(multiply(add(multiply(multiply(c5, s11), t), multiply(c4, s9)), t),
                                                       multiply(c3, s7)), t), multiply(c2, s5)), t),
                                  multiply(c1, s3)), t), c0)
    w = multiply(w, divide(c, b))
    u = multiply(d, log1p(divide(a, b)))
    v = multiply(a, subtract(log(b), 1.0))
    return where(less_equal(u, v), subtract(subtract(w, v), u), subtract(subtract(w, u), v))


def betaln(a: ArrayLike, b: ArrayLike) -> Array:
    """log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b), with cdflib's algdiv where the
    larger argument is 8 or more (accurate where the lgammas are large and nearly cancel)."""
    a, b = _inexact(a, b)
    a, b = minimum(a, b), maximum(a, b)
    small_b = add(lgamma(a), subtract(lgamma(b), lgamma(add(a, b))))
    large_b = add(lgamma(a), _algdiv(a, b))
    return where(less(b, 8.0), small_b, large_b)


def beta(a: ArrayLike, b: ArrayLike) -> Array:
    """The beta function B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b), signed."""
    a, b = _inexact(a, b)
    sign = multiply(multiply(gammasgn(a), gammasgn(b)), gammasgn(add(a, b)))
    return multiply(sign, exp(betaln(a, b)))


def factorial(n: ArrayLike, exact: bool = False) -> Array:
    """n! = Gamma(n + 1) for real n, 0 where n < 0."""
    if exact is not False:
        raise InputError(f"factorial: exact={exact!r} is not supported (as in JAX); use exact=False", user_site())
    (n,) = _inexact(n)
    return where(less(n, 0.0), 0.0, exp(lgamma(add(n, 1.0))))


def comb(N: ArrayLike, k: ArrayLike, *, repetition: bool = False) -> Array:
    """N choose k = exp(gammaln(N + 1) - gammaln(k + 1) - gammaln(N - k + 1)), 0 outside
    0 <= k <= N; with `repetition`, (N + k - 1) choose k (1 for k = 0, N >= 0)."""
    N, k = _inexact(N, k)
    if repetition:
        return where(logical_and(equal(k, 0.0), greater_equal(N, 0.0)), 1.0,
                     comb(subtract(add(N, k), 1.0), k))
    ok = logical_and(logical_and(less_equal(k, N), greater_equal(N, 0.0)), greater_equal(k, 0.0))
    safe_N, safe_k = where(ok, N, 0.0), where(ok, k, 0.0)
    value = exp(subtract(subtract(lgamma(add(safe_N, 1.0)), lgamma(add(safe_k, 1.0))),
                         lgamma(subtract(add(safe_N, 1.0), safe_k))))
    return where(ok, value, 0.0)


@custom_jvp
def poch(z: ArrayLike, m: ArrayLike) -> Array:
    """The rising factorial (z)_m = Gamma(z + m) / Gamma(z), 1 where m = 0. Derivatives:
    (psi(z + m) - psi(z)) (z)_m in z, psi(z + m) (z)_m in m."""
    z, m = _inexact(z, m)
    return where(equal(m, 0.0), 1.0, divide(gamma(add(z, m)), gamma(z)))


poch.defjvps(lambda t, ans, z, m: multiply(t, multiply(subtract(digamma(add(z, m)), digamma(z)), ans)),
             lambda t, ans, z, m: multiply(t, multiply(digamma(add(z, m)), ans)))


def multigammaln(a: ArrayLike, d: int) -> Array:
    """The log of the multivariate gamma function of dimension d (a Python int):
    d (d - 1) / 4 log(pi) + sum over j < d of gammaln(a - j / 2)."""
    if isinstance(d, Tensor):
        raise TraceError(f"multigammaln: d must be a static integer (a Python int), got the traced {d.spec}",
                         user_site())
    try:
        d = operator.index(d)
    except TypeError:
        raise DTypeError(f"multigammaln: d must be an integer, got {_brief(d)}", user_site()) from None
    (a,) = _inexact(a)
    constant = 0.25 * d * (d - 1) * math.log(math.pi)
    halves = np.arange(d, dtype=np.float32) / 2
    return add(sum(lgamma(subtract(expand_dims(a, -1), asarray(halves, _dtype(a)))), axis=-1), constant)


# --- polygamma and the Hurwitz zeta function ----------------------------------------------------------

# B_2j / (2j)!, j = 1..: the Euler-Maclaurin tail of the zeta sum (Johansson 2015, formula 5), as the
# products (s)_(2j-1) / (a + N)^(2j-1) over these.
_BERNOULLI_RATIOS = tuple(math.factorial(2 * j) / b for j, b in enumerate(
    (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510), start=1))
_ZETA_TERMS = 8  # N = M = 8, as JAX's for f32


def zeta(x: ArrayLike, q: ArrayLike | None = None) -> Array:
    """The Hurwitz zeta function zeta(x, q) = sum over k >= 0 of (k + q)^-x, by the
    Euler-Maclaurin formula (8 terms summed, 8 corrections): +inf at x = 1, NaN for x < 1; for
    q <= 0, NaN where x is not an integer, and at the poles (integers q) +inf for even x, NaN for
    odd x (whose sign depends on the side), as JAX's. The Riemann zeta
    function (q None) is not provided, as in JAX: pass q = 1 for x > 1."""
    if q is None:
        raise InputError("zeta: the Riemann zeta function is not provided (as in JAX); pass q, e.g. q=1 for x > 1",
                         user_site())
    s, a = _inexact(x, q)
    n = float(_ZETA_TERMS)
    terms = add(expand_dims(a, -1), asarray(np.arange(_ZETA_TERMS, dtype=np.float32), _dtype(a)))
    total = sum(power(terms, negative(expand_dims(s, -1))), axis=-1)
    an = add(a, n)
    integral = divide(power(an, subtract(1.0, s)), subtract(s, 1.0))
    t0 = power(an, negative(s))
    # Corrections: B_2j / (2j)! s (s + 1) ... (s + 2j - 2) / (a + N)^(2j - 1), the products cut at
    # the dtype's largest value, as JAX's.
    biggest = float(np.finfo(_dtype(s).np).max)
    ratio = divide(s, an)
    corrections = divide(minimum(ratio, biggest), _BERNOULLI_RATIOS[0])
    for j in range(1, len(_BERNOULLI_RATIOS)):
        ratio = multiply(multiply(ratio, divide(add(s, 2.0 * j - 1), an)), divide(add(s, 2.0 * j), an))
        corrections = add(corrections, divide(minimum(ratio, biggest), _BERNOULLI_RATIOS[j]))
    value = add(add(total, integral), multiply(t0, add(0.5, corrections)))
    q_nonpositive = less_equal(a, 0.0)
    return select([equal(s, 1.0), less(s, 1.0), logical_and(q_nonpositive, not_equal(s, floor(s))),
                   logical_and(q_nonpositive, equal(a, floor(a)))],
                  [math.inf, math.nan, math.nan, where(equal(mod(s, 2.0), 0.0), math.inf, math.nan)], value)


def polygamma(n: ArrayLike, x: ArrayLike) -> Array:
    """psi^(n)(x), the n-th derivative of digamma, for integer n (an integer dtype, as JAX asks):
    digamma at n = 0. A static n (a Python int or a concrete array) computes each order by its
    own formula, exactly differentiable in x to any order; a traced n goes through zeta:
    (-1)^(n+1) n! zeta(n + 1, x). NaN for n < 0."""
    if _dtype(n) not in (DType.i32, DType.u32):
        raise DTypeError(f"polygamma: n must be of an integer dtype, got {_dtype(n).name}", user_site())
    (x,) = _inexact(x)
    if isinstance(n, Tensor):
        nf = astype(n, _dtype(x))
        series = multiply(multiply(where(equal(mod(nf, 2.0), 0.0), -1.0, 1.0), exp(lgamma(add(nf, 1.0)))),
                          zeta(add(nf, 1.0), x))
        return select([less(nf, 0.0), equal(nf, 0.0)], [math.nan, digamma(x)], series)
    orders = np.asarray(n)
    out = None
    for m in sorted(set(orders.ravel().tolist()), reverse=True):
        value = digamma(x) if m == 0 else full_like(x, math.nan) if m < 0 else bind(polygamma_p, x, m=int(m))
        out = value if out is None else where(equal(asarray(orders), m), value, out)
    if out is None:  # an empty n
        return add(zeros_like(x), zeros_like(asarray(orders, _dtype(x))))
    return add(out, zeros_like(asarray(orders, _dtype(x))))  # n's shape broadcast in


# --- incomplete gamma and beta functions ----------------------------------------------------------------

# The loops run a fixed number of iterations, each element frozen once it has converged, so that
# an element's value is the one XLA's while loops stop at. For f32 the series needs about 5 sqrt(a)
# terms and the continued fraction about sqrt(a): these counts cover a up to about 2500 and 10^4.
_SERIES_STEPS, _FRACTION_STEPS, _UNROLL = 32, 16, 8  # 256 and 128 iterations, 8 to a loop step
_BETAINC_STEPS, _BETAINC_UNROLL = 33, 6  # 198 iterations after the first: XLA's 199 for f32


def _any_of(*conditions: Array) -> Array:
    out = conditions[0]
    for c in conditions[1:]:
        out = logical_or(out, c)
    return out


def _frozen(on: Array, new: tuple[Array, ...], old: tuple[Array, ...]) -> tuple[Array, ...]:
    """The new loop values where `on` holds, the old ones elsewhere."""
    return tuple(where(on, n, o) for n, o in zip(new, old))


def _igamma_series(ax: Array, x: Array, a: Array, enabled: Array, derivative: bool) -> Array:
    """P(a, x) = ax / a sum over n of x^n / ((a + 1) ... (a + n)) (ax = x^a e^-x / Gamma(a)), or its
    derivative in a: XLA's series, each element summed until its last term is within eps."""
    eps = float(np.finfo(_dtype(x).np).eps)

    def steps(_: Any, vals: tuple[Array, ...]) -> tuple[Array, ...]:
        for _ in range(_UNROLL):
            on, r, c, ans, dc_da, dans_da = vals
            r = add(r, 1.0)
            x_r = divide(x, r)
            if derivative:  # d/da of the terms and of their sum
                dc_da = subtract(multiply(dc_da, x_r), divide(multiply(c, x), square(r)))
                dans_da = add(dans_da, dc_da)
            c = multiply(c, x_r)
            ans = add(ans, c)
            going = greater(abs(divide(dc_da, dans_da)), eps) if derivative else greater(divide(c, ans), eps)
            vals = (logical_and(on, going), *_frozen(on, (r, c, ans, dc_da, dans_da), vals[1:]))
        return vals

    one, zero = full_like(a, 1.0), zeros_like(a)
    _, _, _, ans, _, dans_da = fori_loop(0, _SERIES_STEPS, steps, (enabled, a, one, one, zero, zero))
    if not derivative:
        return divide(multiply(ans, ax), a)
    dlogax_da = subtract(log(x), _digamma(add(a, 1.0)))
    return divide(multiply(ax, add(multiply(ans, dlogax_da), dans_da)), a)


def _igammac_fraction(ax: Array, x: Array, a: Array, enabled: Array, derivative: bool) -> Array:
    """Q(a, x) = ax times Legendre's continued fraction (ax = x^a e^-x / Gamma(a)), or its
    derivative in a: XLA's, each element run until successive convergents agree within eps."""
    eps = float(np.finfo(_dtype(x).np).eps)

    def steps(_: Any, vals: tuple[Array, ...]) -> tuple[Array, ...]:
        for _ in range(_UNROLL):
            on, ans, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm1, dqkm1, dpkm2, dqkm2, dans = vals
            c, y, z = add(c, 1.0), add(y, 1.0), add(z, 2.0)
            yc = multiply(y, c)
            pk = subtract(multiply(pkm1, z), multiply(pkm2, yc))
            qk = subtract(multiply(qkm1, z), multiply(qkm2, yc))
            nonzero = not_equal(qk, 0.0)
            r = divide(pk, qk)
            t = where(nonzero, abs(divide(subtract(ans, r), r)), 1.0)
            ans = where(nonzero, r, ans)
            going = greater(t, eps)
            if derivative:  # d/da of the convergents' numerators and denominators
                dpk = add(subtract(subtract(multiply(dpkm1, z), pkm1), multiply(dpkm2, yc)), multiply(pkm2, c))
                dqk = add(subtract(subtract(multiply(dqkm1, z), qkm1), multiply(dqkm2, yc)), multiply(qkm2, c))
                dans_next = where(nonzero, divide(subtract(dpk, multiply(ans, dqk)), qk), dans)
                going = greater(where(nonzero, abs(subtract(dans_next, dans)), 1.0), eps)
                dpkm1, dqkm1, dpkm2, dqkm2, dans = dpk, dqk, dpkm1, dqkm1, dans_next
            # All four rescaled together when they grow past 1/eps: only their ratios count.
            scale = where(greater(abs(pk), 1.0 / eps), eps, 1.0)
            pkm1, qkm1, pkm2, qkm2, dpkm1, dqkm1, dpkm2, dqkm2 = (
                multiply(v, scale) for v in (pk, qk, pkm1, qkm1, dpkm1, dqkm1, dpkm2, dqkm2))
            new = (ans, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm1, dqkm1, dpkm2, dqkm2, dans)
            vals = (logical_and(on, going), *_frozen(on, new, vals[1:]))
        return vals

    y = subtract(1.0, a)
    z = add(add(x, y), 1.0)
    pkm1, qkm1 = add(x, 1.0), multiply(z, x)
    ans = divide(pkm1, qkm1)
    zero = zeros_like(x)
    init = (enabled, ans, y, z, zero, pkm1, qkm1, full_like(x, 1.0), x, zero, negative(x), zero, zero,
            divide(multiply(ans, x), qkm1))
    out = fori_loop(0, _FRACTION_STEPS, steps, init)
    ans, dans = out[1], out[-1]
    if not derivative:
        return multiply(ans, ax)
    return multiply(ax, add(multiply(ans, subtract(log(x), _digamma(a))), dans))


def _igamma_parts(a: Array, x: Array) -> tuple[Array, Array, Array]:
    """What P and Q share: NaN arguments, x^a e^-x / Gamma(a) and whether its log underflows."""
    log_ax = subtract(subtract(multiply(a, log(x)), x), lgamma(a))
    underflow = less(log_ax, -math.log(float(np.finfo(_dtype(x).np).max)))
    return logical_or(isnan(a), isnan(x)), exp(log_ax), underflow


def _igamma_of(a: Array, x: Array, derivative: bool = False) -> Array:
    """P(a, x), or its derivative in a: XLA's igamma and igamma_grad_a."""
    is_nan, ax, underflow = _igamma_parts(a, x)
    x_zero, x_inf = equal(x, 0.0), equal(x, math.inf)
    if derivative:
        domain_error = _any_of(less(x, 0.0), less_equal(a, 0.0), is_nan)
        enabled = logical_not(_any_of(x_zero, domain_error, underflow))
        use_fraction = logical_and(greater(x, 1.0), greater(x, a))
    else:
        domain_error = _any_of(less(x, 0.0), less(a, 0.0), logical_and(equal(a, 0.0), x_zero), is_nan)
        enabled = logical_not(_any_of(x_zero, domain_error, underflow, x_inf))
        use_fraction = logical_and(greater_equal(x, 1.0), greater(x, a))
    fraction = _igammac_fraction(ax, x, a, logical_and(enabled, use_fraction), derivative)
    series = _igamma_series(ax, x, a, logical_and(enabled, logical_not(use_fraction)), derivative)
    out = where(x_zero, 0.0, where(use_fraction, negative(fraction) if derivative else subtract(1.0, fraction),
                                   series))
    if derivative:
        return where(domain_error, math.nan, out)
    # P(inf, x) = 0 for finite x; (inf, inf) has no limit (jax 0.11's and SciPy's values)
    a_inf = equal(a, math.inf)
    out = where(x_inf, where(a_inf, math.nan, 1.0), where(a_inf, 0.0, out))
    return where(domain_error, math.nan, out)


def _igammac_of(a: Array, x: Array) -> Array:
    """Q(a, x) = 1 - P(a, x): XLA's igammac."""
    is_nan, ax, underflow = _igamma_parts(a, x)
    a_zero, x_inf = equal(a, 0.0), equal(x, math.inf)
    domain_error = _any_of(less(x, 0.0), less(a, 0.0), logical_and(a_zero, equal(x, 0.0)), is_nan)
    enabled = logical_not(_any_of(domain_error, underflow, x_inf, a_zero))
    use_series = logical_or(less(x, 1.0), less(x, a))
    series = _igamma_series(ax, x, a, logical_and(enabled, use_series), False)
    fraction = _igammac_fraction(ax, x, a, logical_and(enabled, logical_not(use_series)), False)
    out = where(logical_or(x_inf, a_zero), 0.0, where(use_series, subtract(1.0, series), fraction))
    # Q(inf, x) = 1 for finite x; (inf, inf) has no limit (jax 0.11's and SciPy's values)
    a_inf = equal(a, math.inf)
    out = where(a_inf, where(x_inf, math.nan, 1.0), out)
    return where(domain_error, math.nan, out)


def _igamma_gradx(t: Array, a: Array, x: Array) -> Array:
    """t x^(a - 1) e^-x / Gamma(a): the derivative of P in x, times t."""
    return multiply(t, exp(subtract(subtract(multiply(subtract(a, 1.0), log(x)), x), lgamma(a))))


@custom_jvp
def _igamma(a: Array, x: Array) -> Array:
    return _igamma_of(a, x)


_igamma.defjvps(lambda t, ans, a, x: multiply(t, _igamma_of(a, x, derivative=True)),
                lambda t, ans, a, x: _igamma_gradx(t, a, x))


@custom_jvp
def _igammac(a: Array, x: Array) -> Array:
    return _igammac_of(a, x)


_igammac.defjvps(lambda t, ans, a, x: negative(multiply(t, _igamma_of(a, x, derivative=True))),
                 lambda t, ans, a, x: negative(_igamma_gradx(t, a, x)))


def gammainc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized lower incomplete gamma function P(a, x), the integral of
    t^(a-1) e^-t / Gamma(a) over [0, x], by XLA's series (x < 1 or x <= a) and continued fraction:
    0 at x = 0 and at a = +inf, 1 at x = +inf, NaN for a < 0, x < 0, a = x = 0, a = x = +inf and
    NaN (jax 0.11's values; jax 0.10 gave NaN at a = +inf). Differentiable in x and,
    as JAX's, in a (by the same series and fraction, differentiated)."""
    return _igamma(*broadcast_arrays(*_inexact(a, x)))


def gammaincc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), without cancellation
    where it is small: 0 at x = +inf and where a = 0 < x, 1 at a = +inf, NaN for a < 0, x < 0,
    a = x = 0, a = x = +inf and NaN (jax 0.11's values; jax 0.10 gave NaN at a = +inf)."""
    return _igammac(*broadcast_arrays(*_inexact(a, x)))


def _betainc_numerator(n: Array, a: Array, b: Array, x: Array, odd: bool) -> Array:
    """XLA's n-th partial numerator (n >= 2, of the parity given), m = (n - 1) // 2:
    m (b - m) x / ((a + 2m - 1)(a + 2m)) for odd n, -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
    for even n (DLMF 8.17.23)."""
    m = floor(divide(subtract(n, 1.0), 2.0))
    a_2m = add(a, multiply(2.0, m))
    if odd:
        return divide(multiply(multiply(m, subtract(b, m)), x), multiply(subtract(a_2m, 1.0), a_2m))
    even = divide(multiply(multiply(negative(add(a, m)), add(add(a, b), m)), x), multiply(a_2m, add(a_2m, 1.0)))
    # At m = 0 the same, written so that a tiny a does not flush to zero.
    return where(equal(m, 0.0), divide(multiply(negative(add(a, b)), x), add(a, 1.0)), even)


def _betainc_of(a: Array, b: Array, x: Array, settle: bool = True) -> Array:
    """I_x(a, b): XLA's continued fraction (the modified Lentz method, each element run until a
    step changes it by less than eps / 2, or every step where not `settle`), through
    I_x(a, b) = 1 - I_(1-x)(b, a) where x >= (a + 1) / (a + b + 2), for which it would converge
    slowly (DLMF 8.17.4)."""
    finfo = np.finfo(_dtype(x).np)
    small = float(finfo.eps) / 2
    a_zero = logical_or(equal(a, 0.0), equal(b, math.inf))
    b_zero = logical_or(equal(b, 0.0), equal(a, math.inf))
    x_zero, x_one = equal(x, 0.0), equal(x, 1.0)
    is_zero = logical_or(logical_and(b_zero, logical_not(x_one)), logical_and(a_zero, x_zero))
    is_one = logical_or(logical_and(a_zero, logical_not(x_zero)), logical_and(b_zero, x_one))
    is_nan = _any_of(less(a, 0.0), less(b, 0.0), less(x, 0.0), greater(x, 1.0), logical_and(a_zero, b_zero),
                     isnan(a), isnan(b), isnan(x))
    direct = less(x, divide(add(a, 1.0), add(add(a, b), 2.0)))
    a, b, x = where(direct, a, b), where(direct, b, a), where(direct, x, subtract(1.0, x))

    def lentz(vals: tuple[Array, ...], numerator: Array) -> tuple[Array, ...]:
        on, c, d, h = vals  # every partial denominator after the 0th is 1
        c = add(1.0, divide(numerator, c))
        c = where(less(abs(c), small), small, c)
        d = add(1.0, multiply(numerator, d))
        d = divide(1.0, where(less(abs(d), small), small, d))
        delta = multiply(c, d)
        going = greater_equal(abs(subtract(delta, 1.0)), small) if settle else on
        return (logical_and(on, going), *_frozen(on, (c, d, multiply(h, delta)), vals[1:]))

    def steps(k: Any, vals: tuple[Array, ...]) -> tuple[Array, ...]:
        first = multiply(astype(k, _dtype(x)), float(_BETAINC_UNROLL))
        for j in range(_BETAINC_UNROLL):  # n = 2 + 6k + j: its parity is j's
            n = add(first, float(2 + j))
            vals = lentz(vals, _betainc_numerator(n, a, b, x, odd=bool(j % 2)))
        return vals

    # The 0th partial denominator is 0, so h and c start at `small`; the 1st partial numerator is 1.
    start = full_like(x, small)
    vals = lentz((full_like(x, True, dtype=DType.bool), start, zeros_like(x), start), full_like(x, 1.0))
    _, _, _, fraction = fori_loop(0, _BETAINC_STEPS, steps, vals)
    lbeta_small_a = subtract(lgamma(b), lgamma(add(a, b)))  # a Gamma(a) -> 1 as a -> 0
    log1m_x = log1p(negative(x))
    factor = where(less(a, float(finfo.tiny) * 2), exp(subtract(multiply(log1m_x, b), lbeta_small_a)),
                   divide(exp(subtract(add(multiply(log(x), a), multiply(log1m_x, b)),
                                       add(lgamma(a), lbeta_small_a))), a))
    result = multiply(fraction, factor)
    result = where(direct, result, subtract(1.0, result))
    return where(is_nan, math.nan, where(is_one, 1.0, where(is_zero, 0.0, result)))


@custom_jvp
def _betainc(a: Array, b: Array, x: Array) -> Array:
    return _betainc_of(a, b, x)


def _betainc_gradx(t: Array, ans: Array, a: Array, b: Array, x: Array) -> Array:
    """t x^(a-1) (1-x)^(b-1) / B(a, b): the derivative in x, times t (B by lgammas, as JAX's)."""
    lbeta = subtract(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
    return multiply(t, exp(subtract(add(multiply(subtract(b, 1.0), log1p(negative(x))),
                                        multiply(subtract(a, 1.0), log(x))), lbeta)))


def _betainc_grad_parameter(k: int) -> Any:
    """The derivative in a (k = 0) or b (k = 1), times t: forward mode through the continued
    fraction run to its last step (JAX has no rule for these, and raises): where the value stops
    at the dtype's precision, its slope would carry the error of where it stopped."""
    def rule(t: Array, ans: Array, a: Array, b: Array, x: Array) -> Array:
        args = [a, b, x]
        slope = jvp(lambda v: _betainc_of(*args[:k], v, *args[k + 1:], settle=False), (args[k],),
                    (full_like(args[k], 1.0),))[1]
        return multiply(t, slope)
    return rule


_betainc.defjvps(_betainc_grad_parameter(0), _betainc_grad_parameter(1), _betainc_gradx)


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The regularized incomplete beta function I_x(a, b), the integral of
    t^(a-1) (1-t)^(b-1) / B(a, b) over [0, x], by XLA's continued fraction: NaN for a < 0, b < 0,
    x outside [0, 1], a = b = 0 and NaN. Its derivative in x is the density; in a and b (where JAX
    raises) forward mode through the continued fraction."""
    return _betainc(*broadcast_arrays(*_inexact(a, b, x)))


# --- the normal distribution --------------------------------------------------------------------------

def ndtr(x: ArrayLike) -> Array:
    """The standard normal distribution's CDF, (1 + erf(x / sqrt 2)) / 2, from erfc in the
    tails (no cancellation below -1)."""
    (x,) = _inexact(x)
    half_sqrt_2 = 0.5 * math.sqrt(2.0)
    w = multiply(x, half_sqrt_2)
    z = abs(w)
    y = where(less(z, half_sqrt_2), add(1.0, erf(w)), where(greater(w, 0.0), subtract(2.0, erfc(z)), erfc(z)))
    return multiply(0.5, y)


_NDTRI_P0 = (-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0)
_NDTRI_P1 = (4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4)
_NDTRI_P2 = (3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9)


def ndtri(p: ArrayLike) -> Array:
    """The inverse of ndtr: x with ndtr(x) = p, by Cephes' rational approximations (one for
    p > e^-2 about 1/2, two in the tails); -inf at 0, +inf at 1, NaN outside [0, 1]."""
    (p,) = _inexact(p)
    complement = where(greater(p, -math.expm1(-2.0)), subtract(1.0, p), p)
    safe = where(equal(complement, 0.0), 0.5, complement)  # 0 would make NaNs in branches not taken
    w = subtract(safe, 0.5)
    ww = square(w)
    big = multiply(add(w, multiply(multiply(w, ww), divide(polyval(_NDTRI_P0, ww), polyval(_NDTRI_Q0, ww)))),
                   -math.sqrt(2.0 * math.pi))
    z = sqrt(multiply(-2.0, log(safe)))
    first = subtract(z, divide(log(z), z))
    inv_z = divide(1.0, z)
    small = subtract(first, divide(divide(polyval(_NDTRI_P2, inv_z), polyval(_NDTRI_Q2, inv_z)), z))
    otherwise = subtract(first, divide(divide(polyval(_NDTRI_P1, inv_z), polyval(_NDTRI_Q1, inv_z)), z))
    x = where(greater(safe, math.exp(-2.0)), big, where(greater_equal(z, 8.0), small, otherwise))
    x = where(greater(p, 1.0 - math.exp(-2.0)), x, negative(x))
    return where(equal(p, 0.0), -math.inf, where(equal(p, 1.0), math.inf, x))


_LOG_NDTR_LOWER, _LOG_NDTR_UPPER = -10.0, 5.0  # JAX's bounds for f32: the asymptotic series below, -ndtr(-x) above


def _norm_logpdf(x: Array) -> Array:
    return subtract(multiply(-0.5, square(x)), 0.5 * math.log(2.0 * math.pi))


def _log_ndtr_series(x: Array, order: int) -> Array:
    """log ndtr(x) for x <= the lower bound: -x^2/2 - log(-x) - log(2 pi)/2 + log(1 + sum over
    n <= order of (-1)^n (2n - 1)!! / x^2n)."""
    x2 = square(x)
    log_scale = subtract(subtract(multiply(-0.5, x2), log(negative(x))), 0.5 * math.log(2.0 * math.pi))
    if order <= 0:
        return log_scale
    even, odd = zeros_like(x), zeros_like(x)
    x2n = x2
    for n in range(1, order + 1):
        term = divide(float(np.prod(np.arange(2 * n - 1, 1, -2))), x2n)
        if n % 2:
            odd = add(odd, term)
        else:
            even = add(even, term)
        x2n = multiply(x2n, x2)
    return add(log_scale, log(subtract(add(1.0, even), odd)))


def log_ndtr(x: ArrayLike, series_order: int = 3) -> Array:
    """log(ndtr(x)), accurate in both tails: -ndtr(-x) above 5, an asymptotic series of
    `series_order` terms (a Python int in [0, 30]) below -10. Its derivative is
    e^(norm_logpdf(x) - log_ndtr(x)), finite everywhere."""
    if isinstance(series_order, bool) or not isinstance(series_order, int):
        raise DTypeError(f"log_ndtr: series_order must be a Python int, got {_brief(series_order)}", user_site())
    if not 0 <= series_order <= 30:
        raise InputError(f"log_ndtr: series_order must be in [0, 30], got {series_order}", user_site())
    (x,) = _inexact(x)
    return _log_ndtr(x, series_order)


def _log_ndtr_of(x: Array, order: int) -> Array:
    above = greater(x, _LOG_NDTR_UPPER)
    # Each branch's argument kept in its own range, so that no other branch's inf reaches a gradient.
    value = ndtr(where(above, negative(x), maximum(x, _LOG_NDTR_LOWER)))
    return where(above, negative(value), where(greater(x, _LOG_NDTR_LOWER), log(value),
                                               _log_ndtr_series(minimum(x, _LOG_NDTR_LOWER), order)))


_LOG_NDTR_RULES: dict[int, Any] = {}


def _log_ndtr(x: Array, order: int) -> Array:
    """log_ndtr of a given series order, with its derivative rule (one custom_jvp per order)."""
    if order not in _LOG_NDTR_RULES:
        fn = custom_jvp(lambda v: _log_ndtr_of(v, order))
        fn.defjvps(lambda t, ans, v: multiply(t, exp(subtract(_norm_logpdf(v), ans))))
        _LOG_NDTR_RULES[order] = fn
    return _LOG_NDTR_RULES[order](x)


# --- Bessel functions of order 0 and 1 ----------------------------------------------------------------

def i0(x: ArrayLike) -> Array:
    """The modified Bessel function of the first kind of order 0 (`jnp.i0`): NaN at +-inf."""
    return bessel_i(x, 0, scaled=False)


@custom_jvp
def _i0e(x: Array) -> Array:
    return bessel_i(x, 0, scaled=True)


_i0e.defjvps(lambda t, ans, x: multiply(t, subtract(bessel_i(x, 1, scaled=True), multiply(sign(x), ans))))


@custom_jvp
def _i1e(x: Array) -> Array:
    return bessel_i(x, 1, scaled=True)


def _i1e_derivative(t: Array, ans: Array, x: Array) -> Array:
    """i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 where |x| is within the dtype's epsilon of 0."""
    eps = float(np.finfo(_dtype(x).np).eps)
    tiny = less_equal(abs(x), eps)
    safe = where(tiny, eps, x)
    slope = subtract(bessel_i(safe, 0, scaled=True), multiply(ans, add(sign(safe), divide(1.0, safe))))
    return multiply(t, where(tiny, 0.5, slope))


_i1e.defjvps(_i1e_derivative)


def i0e(x: ArrayLike) -> Array:
    """e^-|x| I0(x): finite for every finite x, about 1/sqrt(2 pi |x|) for large |x|, 0 at +-inf.
    Its derivative is i1e(x) - sign(x) i0e(x) (0 at 0, as JAX's)."""
    return _i0e(*_inexact(x))


def i1(x: ArrayLike) -> Array:
    """The modified Bessel function of the first kind of order 1 (odd in x): NaN at +-inf."""
    return bessel_i(x, 1, scaled=False)


def i1e(x: ArrayLike) -> Array:
    """e^-|x| I1(x) (odd in x): +-0 at +-inf. Its derivative is i0e(x) - i1e(x) (sign(x) + 1/x),
    1/2 at 0."""
    return _i1e(*_inexact(x))


# --- logistic, entropies, transforms -------------------------------------------------------------------

def expit(x: ArrayLike) -> Array:
    """The logistic function 1 / (1 + e^-x)."""
    return sigmoid(*_inexact(x))


@custom_jvp
def logit(x: ArrayLike) -> Array:
    """log(x / (1 - x)), the inverse of expit; its derivative 1 / (x (1 - x))."""
    (x,) = _inexact(x)
    return log(divide(x, subtract(1.0, x)))


logit.defjvps(lambda t, ans, x: divide(t, multiply(x, subtract(1.0, x))))


@custom_jvp
def xlogy(x: ArrayLike, y: ArrayLike) -> Array:
    """x log(y), 0 where x = 0 (unless y is NaN). Its derivatives are log(y) in x and x / y in y,
    as JAX's (log(y) at x = 0 too)."""
    x, y = _inexact(x, y)
    return where(logical_or(not_equal(x, 0.0), isnan(y)), multiply(x, log(y)), 0.0)


xlogy.defjvps(lambda t, ans, x, y: multiply(t, log(y)), lambda t, ans, x, y: multiply(t, divide(x, y)))


@custom_jvp
def xlog1py(x: ArrayLike, y: ArrayLike) -> Array:
    """x log(1 + y), 0 where x = 0 (unless y is NaN); derivatives log1p(y) and x / (1 + y)."""
    x, y = _inexact(x, y)
    return where(logical_or(not_equal(x, 0.0), isnan(y)), multiply(x, log1p(y)), 0.0)


xlog1py.defjvps(lambda t, ans, x, y: multiply(t, log1p(y)), lambda t, ans, x, y: multiply(t, divide(x, add(1.0, y))))


@custom_jvp
def _xlogx(x: Array) -> Array:
    return xlogy(x, x)


_xlogx.defjvps(lambda t, ans, x: multiply(t, add(log(x), 1.0)))


def entr(x: ArrayLike) -> Array:
    """-x log(x): 0 at 0, -inf for x < 0."""
    (x,) = _inexact(x)
    return where(less(x, 0.0), -math.inf, negative(_xlogx(x)))


def rel_entr(p: ArrayLike, q: ArrayLike) -> Array:
    """p log(p / q) for p, q > 0; 0 where p = 0 and q >= 0; +inf elsewhere."""
    p, q = _inexact(p, q)
    both = logical_and(greater(p, 0.0), greater(q, 0.0))
    zero_p = logical_and(equal(p, 0.0), greater_equal(q, 0.0))
    safe_p, safe_q = where(both, p, 1.0), where(both, q, 1.0)
    return where(both, subtract(_xlogx(safe_p), xlogy(safe_p, safe_q)), where(zero_p, 0.0, math.inf))


def kl_div(p: ArrayLike, q: ArrayLike) -> Array:
    """rel_entr(p, q) - p + q, each term of the Kullback-Leibler divergence (nonnegative)."""
    p, q = _inexact(p, q)
    return add(subtract(rel_entr(p, q), p), q)


def boxcox(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """The Box-Cox transform (x^lmbda - 1) / lmbda, log(x) at lmbda = 0."""
    x, lmbda = _inexact(x, lmbda)
    return _boxcox(log(x), lmbda)


def boxcox1p(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """boxcox(1 + x, lmbda), accurate for small x."""
    x, lmbda = _inexact(x, lmbda)
    return _boxcox(log1p(x), lmbda)


def _boxcox(log_x: Array, lmbda: Array) -> Array:
    zero = equal(lmbda, 0.0)
    safe = where(zero, 1.0, lmbda)
    return where(zero, log_x, divide(expm1(multiply(safe, log_x)), safe))


@custom_jvp
def _erfcx(x: Array) -> Array:
    large = greater(x, math.sqrt(math.log(float(np.finfo(_dtype(x).np).max))))
    safe = where(large, 1.0, x)
    direct = multiply(exp(square(safe)), erfc(safe))
    t = divide(1.0, square(x))  # e^x^2 erfc(x) ~ (1 - 1/(2x^2) + 3/(4x^4) - ...) / (x sqrt(pi))
    asymptotic = divide(polyval((162.421875, -29.53125, 6.5625, -1.875, 0.75, -0.5, 1.0)[-5:], t),
                        multiply(x, math.sqrt(math.pi)))
    return where(large, asymptotic, direct)


_erfcx.defjvps(lambda t, ans, x: multiply(t, subtract(multiply(multiply(2.0, x), ans), 2 / math.sqrt(math.pi))))


def erfcx(x: ArrayLike) -> Array:
    """The scaled complementary error function e^(x^2) erfc(x), without overflow for large x
    (an asymptotic series beyond sqrt(log(the dtype's largest value)))."""
    (x,) = _inexact(x)
    return _erfcx(x)


def softmax(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """e^x / sum(e^x) over `axis`: all of x by default (SciPy's; jax.nn.softmax takes the last)."""
    return _softmax(*_inexact(x), axis=axis)


def log_softmax(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """x - logsumexp(x) over `axis`: all of x by default."""
    return _log_softmax(*_inexact(x), axis=axis)


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
