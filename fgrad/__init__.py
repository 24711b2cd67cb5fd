"""fgrad: JAX-style function transformations that compile to WebGPU."""

from fgrad import lax, nn
from fgrad.transforms import optim
from fgrad.testing import check_grads
from fgrad.transforms.autodiff import grad, value_and_grad, vjp
from fgrad.io import CheckpointError, load, save
from fgrad.errors import (
    CompileError, DTypeError, FgradError, GraphError, InputError, MissingRule, ShapeError, SymbolError, TraceError,
)
from fgrad.interpret import interpret
from fgrad.transforms.optim import adam_init, adam_step, sgd_init, sgd_step
from fgrad.ir import Const, Dim, DType, Graph, Node, Spec
from fgrad.trace import dim, spec
from fgrad.typecheck import typecheck
from fgrad.numpy import (
    abs,
    add,
    arange,
    argmax,
    argmin,
    asarray,
    astype,
    broadcast_to,
    causal_mask,
    clip,
    concatenate,
    cos,
    cumsum,
    divide,
    dynamic_slice,
    dynamic_update_slice,
    equal,
    erf,
    exp,
    expand_dims,
    gelu,
    greater,
    greater_equal,
    isfinite,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    log_softmax,
    logical_and,
    logical_not,
    logical_or,
    logsumexp,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    multiply,
    neg,
    not_equal,
    one_hot,
    pad,
    pow,
    relu,
    reshape,
    rsqrt,
    scatter_add,
    sigmoid,
    silu,
    sin,
    softmax,
    sqrt,
    squeeze,
    stack,
    stop_gradient,
    subtract,
    sum,
    take,
    tanh,
    transpose,
    where,
)
from fgrad.transforms.passes import eliminate_common_subexpressions, eliminate_dead_code, fold_constants, simplify
from fgrad.pytree import tree_map
from fgrad.profile import profile
from fgrad.runtime import Array, Executable, compile, default_device, device_put, devices
from fgrad.jit import jit
from fgrad.trace import Tensor, capture, trace

f32, f16, i32, u32 = DType.f32, DType.f16, DType.i32, DType.u32
negative, power = neg, pow  # NumPy's names

__version__ = "0.1.0"

__all__ = [
    "Array", "CheckpointError", "adam_init", "adam_step", "load", "nn", "optim", "profile", "save", "sgd_init", "sgd_step",
    "CompileError", "Executable", "compile", "default_device", "device_put", "devices", "jit", "Const", "DType", "eliminate_common_subexpressions", "eliminate_dead_code", "fold_constants", "grad", "DTypeError", "FgradError", "Graph", "GraphError", "InputError", "Node", "ShapeError",
    "Dim", "dim", "MissingRule", "Spec", "SymbolError", "Tensor", "TraceError", "abs", "add", "arange", "argmax", "asarray", "astype", "broadcast_to", "capture", "causal_mask", "check_grads",
    "clip", "concatenate", "cos", "divide", "equal", "exp", "expand_dims", "f16", "f32", "gelu", "greater",
    "greater_equal", "i32", "interpret", "less", "less_equal", "log", "log_softmax", "logical_and", "logical_not", "logical_or",
    "logsumexp", "matmul", "max", "maximum", "mean", "min", "minimum", "multiply", "neg", "negative",
    "not_equal", "one_hot", "pad", "pow", "power", "relu", "reshape", "rsqrt", "scatter_add", "sigmoid", "silu", "sin", "softmax",
    "spec", "sqrt", "squeeze", "stack", "stop_gradient", "subtract", "sum", "take", "tanh", "trace",
    "transpose", "tree_map", "simplify", "typecheck", "u32", "value_and_grad", "vjp", "where",
    "argmin", "erf", "isfinite", "isinf", "isnan",
    "cumsum", "dynamic_slice", "dynamic_update_slice", "lax",
]
