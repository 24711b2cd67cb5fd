"""`jax.scipy.cluster` as `fg.scipy.cluster`: `vq`, vector quantisation."""

from fgrad.scipy.cluster import vq

__all__ = ["vq"]
