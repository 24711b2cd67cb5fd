"""`jax.lax`'s names for the fgrad functions JAX users reach through it (`fg.lax.dynamic_slice`)."""

from fgrad.numpy import dynamic_slice, dynamic_update_slice

__all__ = ["dynamic_slice", "dynamic_update_slice"]
