"""`jax.scipy.sparse`: its iterative linear solvers, `fg.scipy.sparse.linalg`."""

from fgrad.scipy.sparse import linalg

__all__ = ["linalg"]
