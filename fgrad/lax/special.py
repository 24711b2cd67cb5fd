"""jax.lax's special functions: bessel_i0e, bessel_i1e, betainc, igamma, igammac, igamma_grad_a,
random_gamma_grad, polygamma and zeta, in lax's strict form (float operands of one dtype, lax's
broadcasting) over fg.scipy.special's algorithms (XLA's series and continued fractions, Hurwitz's
Euler-Maclaurin sum), which are read at call time: fgrad.scipy builds on fgrad.lax."""

from __future__ import annotations

from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import name_errors_after
from fgrad.ir import DType
from fgrad.numpy.promotion import ArrayLike
from fgrad.trace import Tensor
from fgrad.lax.elementwise import _operands

__all__ = [
    "bessel_i0e", "bessel_i1e", "betainc", "igamma", "igamma_grad_a", "igammac", "polygamma", "random_gamma_grad",
    "zeta",
]

Value = Tensor | np.ndarray


def _special() -> Any:
    from fgrad.scipy import special
    return special


def bessel_i0e(x: ArrayLike) -> Value:
    """e^-|x| I0(x) of a float value, as `jax.lax.bessel_i0e`."""
    (x,) = _operands("bessel_i0e", x, kinds="f")
    return _special().i0e(x)


def bessel_i1e(x: ArrayLike) -> Value:
    """e^-|x| I1(x) of a float value, as `jax.lax.bessel_i1e`."""
    (x,) = _operands("bessel_i1e", x, kinds="f")
    return _special().i1e(x)


def igamma(a: ArrayLike, x: ArrayLike) -> Value:
    """The regularized lower incomplete gamma function P(a, x), as `jax.lax.igamma`."""
    return _special().gammainc(*_operands("igamma", a, x, kinds="f"))


def igammac(a: ArrayLike, x: ArrayLike) -> Value:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), as `jax.lax.igammac`."""
    return _special().gammaincc(*_operands("igammac", a, x, kinds="f"))


def igamma_grad_a(a: ArrayLike, x: ArrayLike) -> Value:
    """dP(a, x) / da, as `jax.lax.igamma_grad_a` (XLA's series and continued fraction,
    differentiated)."""
    a, x = fnp.broadcast_arrays(*_operands("igamma_grad_a", a, x, kinds="f"))
    return _special()._igamma_of(a, x, derivative=True)


def random_gamma_grad(a: ArrayLike, x: ArrayLike) -> Value:
    """The derivative in a of a Gamma(a) sample x held at its quantile, as
    `jax.lax.random_gamma_grad`: -(dP/da) / (dP/dx), by implicit differentiation of P(a, x) = u
    (0 at x = 0)."""
    a, x = _operands("random_gamma_grad", a, x, kinds="f")
    density = fnp.exp(fnp.subtract(fnp.subtract(fnp.multiply(fnp.subtract(a, 1.0), fnp.log(x)), x),
                                   _special().gammaln(a)))
    return fnp.where(fnp.equal(x, 0.0), 0.0, fnp.negative(fnp.divide(igamma_grad_a(a, x), density)))


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Value:
    """The regularized incomplete beta function I_x(a, b), as `jax.lax.betainc`."""
    return _special().betainc(*_operands("betainc", a, b, x, kinds="f"))


def zeta(x: ArrayLike, q: ArrayLike) -> Value:
    """The Hurwitz zeta function zeta(x, q), as `jax.lax.zeta`."""
    return _special().zeta(*_operands("zeta", x, q, kinds="f"))


def polygamma(m: ArrayLike, x: ArrayLike) -> Value:
    """psi^(m)(x), the m-th derivative of digamma, as `jax.lax.polygamma`: m a float of x's dtype,
    NaN where it is negative or not a whole number. A concrete m computes each order by its own
    formula; a traced one goes through zeta."""
    m, x = _operands("polygamma", m, x, kinds="f")
    whole = fnp.logical_and(fnp.equal(m, fnp.floor(m)), fnp.greater_equal(m, 0.0))
    if isinstance(m, Tensor):
        order = fnp.astype(fnp.where(whole, m, 0.0), DType.i32)
    else:
        order = np.where(np.asarray(whole), np.asarray(m), -1).astype(np.int32)
    return fnp.where(whole, _special().polygamma(order, x), np.nan)


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
