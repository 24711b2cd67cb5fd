"""What every distribution's functions share: their arguments in one float dtype (`inexact`, from
fgrad.scipy.special) and `jnp.select` (`select`)."""

from fgrad.numpy import select
from fgrad.numpy.promotion import ArrayLike
from fgrad.scipy.special import Array, _inexact as inexact

__all__ = ["Array", "ArrayLike", "inexact", "select"]
