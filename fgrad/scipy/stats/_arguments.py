"""What every distribution's functions share: their arguments in one float dtype (`inexact`) and
`jnp.select` (`select`), from fgrad.scipy.special."""

from fgrad.numpy.promotion import ArrayLike
from fgrad.scipy.special import Array, _inexact as inexact, _select as select

__all__ = ["Array", "ArrayLike", "inexact", "select"]
