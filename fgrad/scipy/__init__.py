"""`jax.scipy`'s names for fgrad's functions: `fg.scipy.special` (gamma and beta functions,
complete and incomplete, the normal distribution's functions, Bessel functions, entropies, zeta)
and `fg.scipy.stats` (one module per distribution: densities or masses, distribution and quantile
functions), written with fgrad's functions, so everything traces, differentiates and compiles to
WGSL."""

from fgrad.scipy import special, stats

__all__ = ["special", "stats"]
