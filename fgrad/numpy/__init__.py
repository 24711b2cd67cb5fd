"""The NumPy / `jax.numpy`-style public functions, and the Tensor operators, by family.

They follow NumPy's names and semantics: they promote dtypes, broadcast,
normalise axes and validate, then `bind` primitives (fgrad/primitives/), so
every broadcast and cast is a visible node in the graph. Each also runs
eagerly on NumPy arrays outside a trace. Each family module lists its public
functions in its `__all__`; this package re-exports them all (and `fgrad`
re-exports this package's).
"""

from __future__ import annotations

from fgrad.errors import name_errors_after
from fgrad.numpy import bitwise, convolution, creation, elementwise, indexing, products, promotion, reductions, shapes
from fgrad.numpy import constants, functional, host, searching, ufuncs
from fgrad.numpy.promotion import *  # noqa: F403
from fgrad.numpy.creation import *  # noqa: F403
from fgrad.numpy.shapes import *  # noqa: F403
from fgrad.numpy.elementwise import *  # noqa: F403
from fgrad.numpy.reductions import *  # noqa: F403
from fgrad.numpy.products import *  # noqa: F403
from fgrad.numpy.indexing import *  # noqa: F403
from fgrad.numpy.bitwise import *  # noqa: F403
from fgrad.numpy.ufuncs import *  # noqa: F403  (after elementwise and bitwise: their ufuncs replace their functions)
from fgrad.numpy.convolution import *  # noqa: F403
from fgrad.numpy.constants import *  # noqa: F403
from fgrad.numpy.searching import *  # noqa: F403
from fgrad.numpy.functional import *  # noqa: F403
from fgrad.numpy.host import *  # noqa: F403
from fgrad.numpy import linalg  # noqa: F401  (jax.numpy.linalg: fg.numpy.linalg, not star-exported)
from fgrad.numpy import fft  # noqa: F401  (jax.numpy.fft: fg.numpy.fft, not star-exported)
from fgrad.numpy import operators  # noqa: F401  (installs the Tensor operators and methods)

bool = bool_  # noqa: A001, F405  (jax.numpy.bool; set here, where no code calls the builtin)

__all__ = sorted({"bool",
    *promotion.__all__, *creation.__all__, *shapes.__all__, *elementwise.__all__, *reductions.__all__,
    *products.__all__, *indexing.__all__, *bitwise.__all__, *convolution.__all__, *constants.__all__,
    *searching.__all__, *functional.__all__, *host.__all__, *ufuncs.__all__,
})
name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
