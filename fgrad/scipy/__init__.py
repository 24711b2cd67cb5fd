"""`jax.scipy`'s names for fgrad's functions: `fg.scipy.special` (gamma, beta, the normal
distribution's functions, Bessel, entropies, zeta) and `fg.scipy.stats` (distributions' densities
and distribution functions), written with fgrad's functions, so everything traces, differentiates
and compiles to WGSL."""

from fgrad.scipy import special

__all__ = ["special"]
