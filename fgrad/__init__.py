"""fgrad: JAX-style function transformations that compile to WebGPU."""

from fgrad import custom_batching, debug, dtypes, experimental, export, flatten_util, image, lax, nn, tree, tree_util
from fgrad.callbacks import effects_barrier, pure_callback
from fgrad.transforms import optim
from fgrad.testing import check_grads
from fgrad.transforms.autodiff import grad, value_and_grad, vjp
from fgrad.transforms.forward import hessian, jacfwd, jacrev, jvp, linearize
from fgrad.transforms.transpose import linear_transpose
from fgrad.transforms.forward import jacrev as jacobian  # jax.jacobian is jax.jacrev
from fgrad.transforms.batching import vmap
from fgrad.transforms.custom import closure_convert, custom_gradient, custom_jvp, custom_vjp
from fgrad.transforms.remat import checkpoint, checkpoint_policies, remat
from fgrad.config import (
    config, debug_infs, debug_nans, default_matmul_precision, enable_checks, enable_x64, explain_cache_misses, log_compiles,
    numpy_dtype_promotion, numpy_rank_promotion,
)
from fgrad.errors import (
    AxisNameError, CompileError, DTypeError, FgradError, GraphError, InputError, InvalidValueError, MissingRule, ShapeError,
    SymbolError, TraceError,
)
from fgrad.interpret import interpret
from fgrad.transforms.optim import adam_init, adam_step, sgd_init, sgd_step
from fgrad.ir import Const, Dim, DType, Graph, Node, Spec
from fgrad.trace import dim, spec
from fgrad.typecheck import typecheck
from fgrad import numpy
from fgrad import random
from fgrad import sharding
from fgrad.sharding import PartitionSpec as P, make_mesh, shard_map
from fgrad import scipy
from fgrad.numpy import *  # noqa: F403  (the NumPy-style functions, also at the top level: fg.exp)
from fgrad.io import CheckpointError, load, save  # fg.save and fg.load are fgrad's checkpoints; fg.numpy's are NumPy's files
from fgrad.transforms.passes import eliminate_common_subexpressions, eliminate_dead_code, fold_constants, simplify
from fgrad.pytree import tree_map
from fgrad.profile import profile
from fgrad.numpy.host import Array  # the type of every fgrad value, as jax.Array
from fgrad.runtime import (
    Device, Executable, adapters, block_until_ready, clear_caches, compile, default_backend, default_device, device_count,
    device_get,
    device_put, devices, live_arrays, local_device_count, local_devices, print_environment_info, process_count,
    process_index,
)
from fgrad.jit import disable_jit, jit, pmap
from fgrad.trace import (
    HostArray, ShapeDtypeStruct, Tensor, capture, ensure_compile_time_eval, eval_shape, make_graph, named_call, named_scope,
    trace, typeof,
)
from fgrad.trace import make_graph as make_jaxpr
from fgrad.generate import generate

f32, f16, i32, u32 = DType.f32, DType.f16, DType.i32, DType.u32
float0 = dtypes.float0  # the dtype of grad's zeros for integer inputs (allow_int), as jax.float0

__version__ = "0.1.0"

__all__ = [
    "Array", "AxisNameError", "Device", "adapters", "float0", "print_environment_info", "CheckpointError", "CompileError", "Const", "DType", "DTypeError", "Dim", "Executable", "FgradError",
    "Graph", "GraphError", "HostArray", "InputError", "InvalidValueError", "MissingRule", "Node", "ShapeError", "Spec", "SymbolError", "Tensor",
    "TraceError", "ShapeDtypeStruct", "adam_init", "adam_step", "block_until_ready", "capture", "check_grads", "clear_caches", "ensure_compile_time_eval",
    "compile", "config", "custom_batching", "debug", "debug_infs", "debug_nans", "default_matmul_precision", "dtypes", "default_backend", "default_device", "device_count", "device_get", "device_put", "devices",
    "dim", "effects_barrier", "experimental", "flatten_util", "live_arrays", "local_device_count", "local_devices", "process_count", "process_index", "disable_jit", "eliminate_common_subexpressions", "eval_shape", "make_graph", "eliminate_dead_code", "enable_checks", "enable_x64", "explain_cache_misses", "f16", "f32", "fold_constants",
    "generate", "grad", "hessian", "i32", "image", "jacfwd", "jacobian", "jacrev", "jvp", "linearize", "linear_transpose", "vmap", "closure_convert", "custom_gradient", "custom_jvp", "custom_vjp",
    "checkpoint", "checkpoint_policies", "remat", "export", "interpret", "jit", "lax", "pmap", "load", "log_compiles", "make_jaxpr", "named_call", "named_scope", "nn", "numpy", "numpy_dtype_promotion", "numpy_rank_promotion", "optim",
    "P", "make_mesh", "profile", "pure_callback", "random", "scipy", "shard_map", "sharding",
    "save", "sgd_init", "sgd_step", "simplify", "spec", "trace", "tree", "tree_map", "tree_util", "typecheck", "typeof", "u32",
    "value_and_grad", "vjp",
    *numpy.__all__,
]
