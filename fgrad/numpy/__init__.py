"""The NumPy / `jax.numpy`-style public functions, and the Tensor operators, by family.

They follow NumPy's names and semantics: they promote dtypes, broadcast,
normalise axes and validate, then `bind` primitives (fgrad/primitives/), so
every broadcast and cast is a visible node in the graph. Each also runs
eagerly on NumPy arrays outside a trace.
"""

from __future__ import annotations

from fgrad.numpy.promotion import (
    asarray, result_dtype,
)
from fgrad.numpy.shapes import (
    broadcast_to, concatenate, expand_dims, pad, reshape, squeeze, stack, transpose,
)
from fgrad.numpy.elementwise import (
    abs, add, astype, clip, cos, divide, equal, erf, exp, gelu, greater, greater_equal, isfinite,
    isinf, isnan, less, less_equal, log, logical_and, logical_not, logical_or, maximum, minimum,
    multiply, neg, not_equal, pow, relu, rsqrt, sigmoid, silu, sin, sqrt, stop_gradient, subtract,
    tanh, where,
)
from fgrad.numpy.reductions import (
    argmax, argmin, cumsum, log_softmax, logsumexp, max, mean, min, softmax, sum,
)
from fgrad.numpy.linalg import (
    matmul,
)
from fgrad.numpy.indexing import (
    arange, causal_mask, dynamic_slice, dynamic_update_slice, getitem, one_hot, scatter_add, take,
)
from fgrad.numpy.operators import (
    ARITHMETIC_OPERATORS, COMPARISON_OPERATORS,
)

__all__ = [
    "ARITHMETIC_OPERATORS", "COMPARISON_OPERATORS", "abs", "add", "arange", "argmax", "argmin",
    "asarray", "astype", "broadcast_to", "causal_mask", "clip", "concatenate", "cos", "cumsum",
    "divide", "dynamic_slice", "dynamic_update_slice", "equal", "erf", "exp", "expand_dims",
    "gelu", "getitem", "greater", "greater_equal", "isfinite", "isinf", "isnan", "less",
    "less_equal", "log", "log_softmax", "logical_and", "logical_not", "logical_or", "logsumexp",
    "matmul", "max", "maximum", "mean", "min", "minimum", "multiply", "neg", "not_equal",
    "one_hot", "pad", "pow", "relu", "reshape", "result_dtype", "rsqrt", "scatter_add", "sigmoid",
    "silu", "sin", "softmax", "sqrt", "squeeze", "stack", "stop_gradient", "subtract", "sum",
    "take", "tanh", "transpose", "where",
]
