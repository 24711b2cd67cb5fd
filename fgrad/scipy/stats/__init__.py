"""`jax.scipy.stats` as `fg.scipy.stats`: one module per distribution, each with the functions JAX
gives it (logpdf and pdf, or logpmf and pmf; cdf, logcdf, sf, logsf, ppf, isf where JAX has
them), the same arguments and defaults (loc=0, scale=1) and the same values outside the support
and at invalid parameters; and JAX's functions of data at the top level: `mode`, `rankdata`, `sem`
and the `gaussian_kde` estimator (a pytree). Each is written with fgrad's functions as JAX writes
it, so it traces, differentiates, batches and compiles to WGSL."""

from fgrad.scipy.stats import (
    bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma, gennorm, geom, gumbel_l, gumbel_r,
    laplace, logistic, multinomial, multivariate_normal, nbinom, norm, pareto, poisson, t, truncnorm, uniform,
    vonmises, wrapcauchy,
)
from fgrad.scipy.stats._kde import gaussian_kde
from fgrad.scipy.stats._mode import mode
from fgrad.scipy.stats._rankdata import rankdata
from fgrad.scipy.stats._sem import sem

__all__ = [
    "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma", "gennorm", "geom",
    "gumbel_l", "gumbel_r", "laplace", "logistic", "multinomial", "multivariate_normal", "nbinom", "norm", "pareto",
    "poisson", "t", "truncnorm", "uniform", "vonmises", "wrapcauchy",
    "gaussian_kde", "mode", "rankdata", "sem",
]
