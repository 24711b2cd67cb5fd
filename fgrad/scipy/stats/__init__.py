"""`jax.scipy.stats` as `fg.scipy.stats`: one module per distribution, each with the functions JAX
gives it (logpdf and pdf, or logpmf and pmf; cdf, logcdf, sf, logsf, ppf, isf where JAX has
them), the same arguments and defaults (loc=0, scale=1) and the same values outside the support
and at invalid parameters. Each is written with fgrad's functions as JAX writes it, so it traces,
differentiates, batches and compiles to WGSL. gaussian_kde, mode, rankdata and sem are not
provided."""

from fgrad.scipy.stats import (
    bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma, gennorm, geom, gumbel_l, gumbel_r,
    laplace, logistic, multinomial, multivariate_normal, nbinom, norm, pareto, poisson, t, truncnorm, uniform,
    vonmises, wrapcauchy,
)

__all__ = [
    "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma", "gennorm", "geom",
    "gumbel_l", "gumbel_r", "laplace", "logistic", "multinomial", "multivariate_normal", "nbinom", "norm", "pareto",
    "poisson", "t", "truncnorm", "uniform", "vonmises", "wrapcauchy",
]
