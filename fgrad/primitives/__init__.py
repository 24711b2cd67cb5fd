"""The primitives: one block each, holding all of it.

A block declares the primitive (name, abstract evaluation, NumPy
implementation: what `interpret` runs) and registers, next to it, its rule in
each interpretation's table: reverse mode (`vjp_rules`, fgrad/transforms/autodiff.py),
algebraic identities (`simplify_rules`, fgrad/transforms/passes.py) and the WGSL
lowering (`lowerings`: kernel kind and WGSL, fgrad/lower/kinds.py). Primitives
are strict: elementwise ones take operands of one shape and one dtype. The
public functions (fgrad/numpy.py) promote, broadcast and validate, then bind
primitives, so every broadcast and cast is a visible node in the graph.
"""

# ---------------------------------------------------------------------------
# Primitives: one block each
# ---------------------------------------------------------------------------
# A VJP rule is `vjp(g, ans, *inputs, **params) -> one cotangent (or None)
# per input`, written with the public functions (fnp) so that it can be
# differentiated again. A simplify rule is `simplify(node, nodes) -> an
# existing node id, a replacement Node, or None` (fgrad/transforms/passes.py).
# A lowering is a kernel kind and a WGSL rule (fgrad/lower/kinds.py).

from fgrad.primitives.elementwise import (
    abs_p, add_p, astype_p, convert, cos_p, div_p, eq_p, erf_p, exp_p, ge_p, gelu_p, gt_p,
    integer_pow_p, iota_p, isinf_p, isnan_p, le_p, log_p, logical_and_p, logical_not_p,
    logical_or_p, lt_p, maximum_p, minimum_p, mul_p, ne_p, neg_p, pow_p, relu_p, rsqrt_p,
    sigmoid_p, silu_p, sin_p, sqrt_p, stop_gradient_p, sub_p, tanh_p, where_p,
)
from fgrad.primitives.reductions import (
    argmax_p, argmin_p, cumsum_p, log_softmax_p, max_p, min_p, softmax_p, sum_p,
)
from fgrad.primitives.shapes import (
    broadcast_to_p, concatenate_p, dim_size_p, pad_p, reshape_p, slice_p, transpose_p,
)
from fgrad.primitives.linalg import (
    matmul_p,
)
from fgrad.primitives.indexing import (
    dynamic_slice_p, dynamic_update_slice_p, scatter_add_p, take_p,
)

__all__ = [
    "abs_p", "add_p", "argmax_p", "argmin_p", "astype_p", "broadcast_to_p", "concatenate_p", "convert", "cos_p",
    "cumsum_p", "dim_size_p", "div_p", "dynamic_slice_p", "dynamic_update_slice_p",
    "eq_p", "erf_p", "exp_p", "ge_p", "gelu_p", "gt_p", "integer_pow_p", "iota_p", "isinf_p",
    "isnan_p", "le_p", "log_p", "log_softmax_p", "logical_and_p", "logical_not_p", "logical_or_p",
    "lt_p", "matmul_p", "max_p", "maximum_p", "min_p", "minimum_p", "mul_p", "ne_p", "neg_p",
    "pad_p", "pow_p", "relu_p", "reshape_p", "rsqrt_p", "scatter_add_p", "sigmoid_p", "silu_p",
    "sin_p", "slice_p", "softmax_p", "sqrt_p", "stop_gradient_p", "sub_p", "sum_p", "take_p",
    "tanh_p", "transpose_p", "where_p",
]
