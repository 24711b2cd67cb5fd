"""`jax.lax`'s names for fgrad's functions (`fg.lax.dot_general`), by family.

lax is stricter than jax.numpy: the operands of an op share one dtype (no promotion), dimension
arguments are explicit tuples, and only scalars and size-1 axes broadcast. Each function
validates its arguments, naming itself in its errors, then calls the fgrad.numpy functions or
binds primitives, so everything traces, differentiates and compiles to WGSL. `fg.lax.linalg`
(cholesky, lu, triangular_solve) is a submodule, as `jax.lax.linalg` is.
"""

from fgrad.errors import name_errors_after
from fgrad.lax import control, elementwise, indexing, parallel, reductions, shapes, special
from fgrad.lax.elementwise import *  # noqa: F403
from fgrad.lax.shapes import *  # noqa: F403
from fgrad.lax.reductions import *  # noqa: F403
from fgrad.lax.control import *  # noqa: F403
from fgrad.lax.indexing import *  # noqa: F403
from fgrad.lax.special import *  # noqa: F403
from fgrad.sharding import with_sharding_constraint
from fgrad.lax.parallel import *  # noqa: F403
from fgrad.lax import linalg  # noqa: F401  (jax.lax.linalg: fg.lax.linalg, not star-exported)
from fgrad.numpy.elementwise import atan2, erfinv as erf_inv, rem
from fgrad.numpy.shapes import lax_pad as pad
from fgrad.numpy.convolution import (
    ConvDimensionNumbers, conv, conv_dimension_numbers, conv_general_dilated, conv_general_dilated_patches,
    conv_general_permutations, conv_general_shape_tuple, conv_shape_tuple, conv_transpose, conv_transpose_shape_tuple,
    conv_with_general_padding, padtype_to_pads, reduce_window, reduce_window_shape_tuple,
)
from fgrad.numpy import bitwise_and, bitwise_not, bitwise_or, bitwise_xor
from fgrad.numpy.bitwise import (
    bitcast_convert_type, clz, population_count, shift_left, shift_right_arithmetic, shift_right_logical,
)
from fgrad.transforms.control_flow import cond, fori_loop, scan, switch, while_loop
from fgrad.transforms.remat import optimization_barrier
from fgrad.numpy.reductions import (
    lax_cumlogsumexp as cumlogsumexp, lax_cummax as cummax, lax_cummin as cummin, lax_cumprod as cumprod,
    lax_cumsum as cumsum, lax_sort as sort, top_k,
)

__all__ = [
    *elementwise.__all__, *shapes.__all__, *reductions.__all__, *control.__all__, *indexing.__all__,
    *special.__all__, *parallel.__all__,
    "atan2", "erf_inv", "rem", "pad", "with_sharding_constraint",
    "ConvDimensionNumbers", "conv", "conv_dimension_numbers", "conv_general_dilated", "conv_general_dilated_patches",
    "conv_transpose", "conv_with_general_padding", "padtype_to_pads", "reduce_window", "conv_general_permutations",
    "conv_general_shape_tuple", "conv_shape_tuple", "conv_transpose_shape_tuple", "reduce_window_shape_tuple",
    "bitcast_convert_type", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "clz", "population_count",
    "shift_left", "shift_right_arithmetic", "shift_right_logical",
    "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "sort", "top_k",
    "cond", "fori_loop", "scan", "switch", "while_loop", "optimization_barrier",
]

name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
