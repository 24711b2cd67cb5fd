"""What every distribution's functions share: their arguments in one float dtype (`inexact`,
jax's promote_args_inexact) and `jnp.select` (`select`)."""

from fgrad.numpy import select
from fgrad.numpy.promotion import ArrayLike, _inexact as inexact
from fgrad.scipy.special import Array

__all__ = ["Array", "ArrayLike", "inexact", "select"]
