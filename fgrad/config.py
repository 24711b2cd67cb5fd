"""`fg.config`, as `jax.config`: options named as JAX's, each with JAX's meaning where fgrad has it.

Set one for the process with `fg.config.update("jax_debug_nans", True)`, read it as
`fg.config.jax_debug_nans`, or set it for a block (in this thread or task only) with its context
manager, named as JAX's: `with fg.debug_nans(True): ...`. An option JAX has but fgrad cannot
honour is refused by name, as an unknown one is: nothing is silently ignored.

This module imports nothing of fgrad but its errors, so every layer can read an option.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from fgrad.errors import FgradError

__all__ = [
    "config", "debug_infs", "debug_nans", "default_matmul_precision", "enable_checks", "enable_x64",
    "explain_cache_misses", "log_compiles", "numpy_dtype_promotion", "numpy_rank_promotion",
]


class ConfigError(FgradError, ValueError):
    """An option fgrad does not have, or a value an option does not take."""


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, int, np.bool_)) or isinstance(value, int) and value not in (0, 1):
        raise ConfigError(f"config: {name} takes True or False, got {value!r}")
    return bool(value)


def _one_of(*choices: Any) -> Callable[[str, Any], Any]:
    def check(name: str, value: Any) -> Any:
        if value not in choices or (value is not None and not isinstance(value, str)):
            raise ConfigError(f"config: {name} takes one of {list(choices)}, got {value!r}")
        return value
    return check


def _no_x64(name: str, value: Any) -> bool:
    if _flag(name, value):
        raise ConfigError(f"config: {name}=True: fgrad has no 64-bit types (WGSL has neither f64 nor i64), so "
                          f"values stay 32-bit as with JAX's default (float64 inputs become float32); to compute "
                          f"in float64, use fg.interpret(graph, *args, float64=True) on the host")
    return False


# The backend each name of one chooses, as fg.default_backend() names it: a CPU adapter or a GPU.
PLATFORMS = {"cpu": "cpu", "gpu": "gpu", "webgpu": "gpu"}


def _platforms(name: str, value: Any) -> str | None:
    if value is None:
        return None
    names = value.split(",") if isinstance(value, str) else None
    if not names or any(n.strip() not in PLATFORMS for n in names) or (name == "jax_platform_name" and len(names) > 1):
        what = "one of" if name == "jax_platform_name" else "a comma-separated list of"
        raise ConfigError(f"config: {name} takes None or {what} {list(PLATFORMS)} (fgrad's backends: a CPU "
                          f"adapter such as llvmpipe, or a GPU through WebGPU), got {value!r}")
    return ",".join(n.strip() for n in names)


def _directory(name: str, value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"config: {name} takes a folder's path (a str) or None, got {value!r}")
    return value


# jax.lax.Precision's names and the dot algorithms' presets (JAX's accepted values). fgrad's
# products always sum f32 products in f32 (JAX's "highest"), which every choice allows.
_PRECISIONS = (None, "default", "high", "highest", "bfloat16", "tensorfloat32", "float32", "ANY_F8_ANY_F8_F32",
               "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16",
               "F16_F16_F32", "BF16_BF16_BF16", "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6",
               "BF16_BF16_F32_X9", "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64")


@dataclass(frozen=True)
class Option:
    """One option: its default, the check that takes a value (and returns it as stored), what it does."""
    default: Any
    check: Callable[[str, Any], Any]
    doc: str
    manager: str | None = None  # the name of its context manager, as JAX's


OPTIONS: dict[str, Option] = {
    "jax_debug_nans": Option(False, _flag, "raise FloatingPointError where a computation makes a NaN, naming "
                             "the op and its line (a compiled call is run again op by op, in NumPy, to find it)",
                             "debug_nans"),
    "jax_debug_infs": Option(False, _flag, "as jax_debug_nans, for infinities", "debug_infs"),
    "jax_numpy_rank_promotion": Option("allow", _one_of("allow", "warn", "raise"),
                                       "broadcasting operands of different ranks in fg.numpy's functions: "
                                       "allowed, warned about, or an error", "numpy_rank_promotion"),
    "jax_numpy_dtype_promotion": Option("standard", _one_of("standard", "strict"),
                                        "'strict' refuses operands of different dtypes (Python numbers of their "
                                        "kind excepted) where 'standard' promotes them", "numpy_dtype_promotion"),
    "jax_disable_jit": Option(False, _flag, "run jitted functions' Python eagerly (fg.disable_jit)"),
    "jax_enable_x64": Option(False, _no_x64, "64-bit types: fgrad has none, so only False", "enable_x64"),
    "jax_default_matmul_precision": Option(None, _one_of(*_PRECISIONS),
                                           "accepted as JAX's: fgrad's products always sum f32 in f32 (JAX's "
                                           "'highest'), as precise as any choice asks", "default_matmul_precision"),
    "jax_platforms": Option(None, _platforms, "the backends to choose the default device from, in order: 'cpu' (a "
                            "CPU adapter) or 'gpu' ('webgpu'); read when the default device is first opened"),
    "jax_platform_name": Option(None, _platforms, "as jax_platforms, one name"),
    "jax_compilation_cache_dir": Option(None, _directory, "the folder of the compiled-program cache (else "
                                        "FGRAD_CACHE_DIR, else ~/.cache/fgrad)"),
    "jax_log_compiles": Option(False, _flag, "log each trace and compile of a jitted function (logger 'fgrad', "
                               "level WARNING), with its time", "log_compiles"),
    "jax_enable_checks": Option(False, _flag, "type-check every graph a jitted function traces "
                                "(fg.typecheck) before it is lowered", "enable_checks"),
    "jax_explain_cache_misses": Option(False, _flag, "log why a jitted function traces again (logger 'fgrad', "
                                       "level WARNING): how the call's signature differs from the closest seen",
                                       "explain_cache_misses"),
}


_LOCAL = {name: contextvars.ContextVar(f"fgrad_{name}") for name in OPTIONS}  # a context manager's values


class Config:
    """The options' values: `update(name, value)` for the process, a property per option to read it
    (a context manager's value inside its block), `values` for all of them."""

    def __init__(self) -> None:
        object.__setattr__(self, "_global", {name: option.default for name, option in OPTIONS.items()})

    def update(self, name: str, value: Any) -> None:
        """Set option `name` for the whole process (a context manager's block still sees its own value)."""
        self._global[name] = _checked(name, value)

    def __getattr__(self, name: str) -> Any:  # an option's own property (below) reads it
        raise AttributeError(_unknown(name))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"config: set options with fg.config.update({name!r}, value)")

    @property
    def values(self) -> dict[str, Any]:
        """Every option's value here, by name."""
        return {name: getattr(self, name) for name in OPTIONS}

    @contextlib.contextmanager
    def local(self, name: str, value: Any) -> Iterator[None]:
        """Option `name` set to `value` within the block, in this thread or task only."""
        token = _LOCAL[name].set(_checked(name, value))
        try:
            yield
        finally:
            _LOCAL[name].reset(token)

    def __repr__(self) -> str:
        return f"fg.config({', '.join(f'{k}={v!r}' for k, v in self.values.items())})"


def _unknown(name: str) -> str:
    return (f"config: fgrad has no option {name!r}; its options, named as JAX's: {', '.join(OPTIONS)}"
            if isinstance(name, str) else f"config: option names are strings, got {name!r}")


def _checked(name: str, value: Any) -> Any:
    option = OPTIONS.get(name) if isinstance(name, str) else None
    if option is None:
        raise ConfigError(_unknown(name))
    return option.check(name, value)


def _reader(name: str) -> property:
    local = _LOCAL[name]

    def read(self: Config) -> Any:  # a property per option: read on every compiled call, so quick
        return local.get(self._global[name])
    return property(read, doc=OPTIONS[name].doc)


for _name in OPTIONS:
    setattr(Config, _name, _reader(_name))
del _name
config = Config()


_REQUIRED = object()


def _manager(name: str) -> Callable[..., contextlib.AbstractContextManager[None]]:
    flag = isinstance(OPTIONS[name].default, bool)

    def manager(new_val: Any = _REQUIRED) -> contextlib.AbstractContextManager[None]:
        if new_val is _REQUIRED:
            if not flag:  # as JAX's: only a flag's manager has a default (True)
                raise ConfigError(f"{manager.__name__}: give the value of {name} for the block")
            new_val = True
        return config.local(name, new_val)
    manager.__name__ = manager.__qualname__ = OPTIONS[name].manager or name
    manager.__doc__ = f"Context manager setting `{name}` within its block: {OPTIONS[name].doc}."
    return manager


debug_nans = _manager("jax_debug_nans")
debug_infs = _manager("jax_debug_infs")
numpy_rank_promotion = _manager("jax_numpy_rank_promotion")
numpy_dtype_promotion = _manager("jax_numpy_dtype_promotion")
enable_x64 = _manager("jax_enable_x64")
default_matmul_precision = _manager("jax_default_matmul_precision")
log_compiles = _manager("jax_log_compiles")
enable_checks = _manager("jax_enable_checks")
explain_cache_misses = _manager("jax_explain_cache_misses")
