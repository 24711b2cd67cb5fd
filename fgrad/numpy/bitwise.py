"""Bitwise operations and shifts on integers (and logical ones on bools), as jax.numpy's; the
strict `jax.lax` forms (`fg.lax.shift_right_logical`, `bitcast_convert_type`) are here too."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import DType, Primitive
from fgrad.primitives import (
    bitcast_convert_type_p, bitwise_and_p, bitwise_not_p, bitwise_or_p, bitwise_xor_p, clz_p, population_count_p,
    shift_left_p, shift_right_arithmetic_p, shift_right_logical_p,
)
from fgrad.trace import Tensor, bind, spec_of, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _arith_dtype, _as_dtype, _broadcast, _dtype, _elementwise, _shape, asarray, result_dtype,
)
from fgrad.numpy.shapes import stack
from fgrad.numpy.elementwise import (
    abs, astype, equal, floor_divide, logical_and, logical_not, logical_or, logical_xor, multiply, not_equal, rem,
    where,
)

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "bitwise_and", "bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "invert", "left_shift", "right_shift", "gcd", "lcm",
]


def _integer_dtype(name: str, *args: ArrayLike, bools: bool = True) -> DType:
    """The dtype `args` promote to, which must be an integer one (or bool, where `bools`)."""
    dtype = result_dtype(*args)
    if not (dtype.is_int or bools and dtype is DType.bool):
        kinds = "integer or bool" if bools else "integer"
        shown = ", ".join(str(spec_of(asarray(a))) for a in args)
        operator = f" ({OPERATORS[name]})" if name in OPERATORS else ""
        raise DTypeError(f"{name}{operator}: takes {kinds} operands, got {shown}", user_site())
    return dtype


# The Python operators of the functions (Tensor and Array operators call them), named in errors.
OPERATORS = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "invert": "~", "left_shift": "<<",
             "right_shift": ">>"}


def _bitwise(name: str, op: Primitive, logical: Callable[..., Tensor | np.ndarray],
             doc: str) -> Callable[..., Tensor | np.ndarray]:
    """The public function of a bitwise binary op: `op` on integers, `logical` on bools."""

    def fn(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
        if _integer_dtype(name, x, y) is DType.bool:
            return logical(x, y)
        return _elementwise(op, x, y)

    fn.__name__ = fn.__qualname__ = name
    fn.__code__ = fn.__code__.replace(co_name=name)  # errors and user_call() say `bitwise_and`, not `fn`
    fn.__doc__ = doc
    return fn


bitwise_and = _bitwise("bitwise_and", bitwise_and_p, logical_and,
                       "x & y on the bits of integers (promoted as jax.numpy's); logical and on bools.")
bitwise_or = _bitwise("bitwise_or", bitwise_or_p, logical_or,
                      "x | y on the bits of integers (promoted as jax.numpy's); logical or on bools.")
bitwise_xor = _bitwise("bitwise_xor", bitwise_xor_p, logical_xor,
                       "x ^ y on the bits of integers (promoted as jax.numpy's); logical xor on bools.")


def invert(x: ArrayLike) -> Tensor | np.ndarray:
    """~x: every bit of an integer flipped (-x - 1 on i32); logical not on bools."""
    if _integer_dtype("invert", x) is DType.bool:
        return logical_not(x)
    return bind(bitwise_not_p, asarray(x))


bitwise_not = bitwise_invert = invert  # jax.numpy's other names


def left_shift(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x << y on integers promoted together (bools count as i32). A count that is negative or
    from the dtype's width up gives 0, as jax.numpy's."""
    _integer_dtype("left_shift", x, y)
    return _elementwise(shift_left_p, x, y, dtype=_arith_dtype(x, y))


def right_shift(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x >> y on integers promoted together (bools count as i32): arithmetic (filling with the
    sign) for signed integers, logical for unsigned ones. A count that is negative or from the
    dtype's width up shifts every bit out: 0, or -1 for a negative value, as jax.numpy's."""
    _integer_dtype("right_shift", x, y)
    dtype = _arith_dtype(x, y)
    op = shift_right_logical_p if dtype.kind == "u" else shift_right_arithmetic_p
    return _elementwise(op, x, y, dtype=dtype)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift  # the array API's names


def bitwise_count(x: ArrayLike) -> Tensor | np.ndarray:
    """The number of bits set in |x|, as a uint8, as NumPy's and jax.numpy's."""
    dtype = _integer_dtype("bitwise_count", x)
    magnitude = astype(x, DType.u8) if dtype is DType.bool else abs(x)
    return astype(bind(population_count_p, asarray(magnitude)), DType.u8)


# -- greatest common divisors and least common multiples ----------------------------------------------

# Euclid's steps for a pair of u32 below 2^32 < F(48): Lame's bound of 45 divisions, one more where
# the smaller comes first (its remainder swaps the two).
EUCLID_STEPS = 46


def gcd(x1: ArrayLike, x2: ArrayLike) -> Tensor | np.ndarray:
    """The greatest common divisor of |x1| and |x2| (0 for two zeros), as `jnp.gcd`, in their
    promoted integer dtype. jax.numpy loops while any pair is unfinished; fgrad takes the
    `EUCLID_STEPS` steps that finish every 32-bit pair, so it traces and compiles as one
    elementwise kernel. |x| is taken as a u32, so that of the i32 minimum is 2^31 (where
    jax.numpy's loop on a negative |x| does not end; this is NumPy's value)."""
    dtype = _integer_dtype("gcd", x1, x2, bools=False)
    a, b = (astype(abs(x), DType.u32) for x in _broadcast("gcd", asarray(x1, dtype), asarray(x2, dtype)))
    for _ in range(EUCLID_STEPS):
        going = not_equal(b, 0)
        a, b = where(going, b, a), where(going, rem(a, where(going, b, 1)), 0)
    return astype(a, dtype)


def lcm(x1: ArrayLike, x2: ArrayLike) -> Tensor | np.ndarray:
    """The least common multiple of |x1| and |x2|, |x1| (|x2| // gcd), 0 where either is 0, as
    `jnp.lcm`, wrapping in their promoted integer dtype."""
    dtype = _integer_dtype("lcm", x1, x2, bools=False)
    a, b = abs(asarray(x1, dtype)), abs(asarray(x2, dtype))
    d = gcd(a, b)
    zero = equal(d, 0)
    return where(zero, asarray(0, dtype), multiply(a, floor_divide(b, where(zero, asarray(1, dtype), d))))


# -- jax.lax's forms (fg.lax): operands of one integer dtype after promotion ---------------------


def _lax_shift(name: str, op: Primitive, doc: str) -> Callable[..., Tensor | np.ndarray]:
    def fn(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
        return _elementwise(op, x, y, dtype=_integer_dtype(name, x, y, bools=False))

    fn.__name__ = fn.__qualname__ = name
    fn.__code__ = fn.__code__.replace(co_name=name)
    fn.__doc__ = doc
    return fn


shift_left = _lax_shift("shift_left", shift_left_p, "x << y (lax.shift_left): a count that is negative or from the "
                        "dtype's width up gives 0.")
shift_right_logical = _lax_shift("shift_right_logical", shift_right_logical_p,
                                 "x >> y filling with zeros, for signed integers too (lax.shift_right_logical): a "
                                 "count that is negative or from the dtype's width up gives 0.")
shift_right_arithmetic = _lax_shift("shift_right_arithmetic", shift_right_arithmetic_p,
                                    "x >> y filling with the sign bit, for unsigned integers too "
                                    "(lax.shift_right_arithmetic): a count that is negative or from the dtype's width "
                                    "up gives 0 or -1.")


def population_count(x: ArrayLike) -> Tensor | np.ndarray:
    """The number of bits set in x's two's complement bits (lax.population_count), in x's dtype."""
    _integer_dtype("population_count", x, bools=False)
    return bind(population_count_p, asarray(x))


def clz(x: ArrayLike) -> Tensor | np.ndarray:
    """The number of leading zero bits of the dtype's width (lax.clz): 32 for an i32 0, 8 for an i8
    0, 0 for a negative value."""
    _integer_dtype("clz", x, bools=False)
    return bind(clz_p, asarray(x))


_UNSIGNED = {d.itemsize: d for d in DType if d.kind == "u"}  # the unsigned integer of each width in bytes


def bitcast_convert_type(operand: ArrayLike, new_dtype: str | DType) -> Tensor | np.ndarray:
    """The bits of `operand` read as `new_dtype`, as `lax.bitcast_convert_type`; a bit cast to its
    own dtype is the operand. Between widths, as JAX's: a value of a wider dtype gives a last axis
    of its narrower parts, least significant first (an i32 gives 4 i8s), and a last axis of that
    many narrower values gives one wider value."""
    if new_dtype is None:
        raise DTypeError("bitcast_convert_type: new_dtype must be given", user_site())
    x, dtype = asarray(operand), _as_dtype(new_dtype, "bitcast_convert_type")
    have = _dtype(x)
    if have is dtype:
        return x
    if have.itemsize == dtype.itemsize or DType.bool in (have, dtype):
        return bind(bitcast_convert_type_p, x, new_dtype=dtype)  # its rule names what it refuses
    bits = bitcast_convert_type(x, _UNSIGNED[have.itemsize])
    ratio = max(have.itemsize, dtype.itemsize) // min(have.itemsize, dtype.itemsize)
    step = 8 * min(have.itemsize, dtype.itemsize)
    if have.itemsize > dtype.itemsize:  # the parts, least significant first, on a new last axis
        parts = [astype(shift_right_logical(bits, step * k), _UNSIGNED[dtype.itemsize]) for k in range(ratio)]
        return bitcast_convert_type(stack(parts, -1), dtype)
    shape = _shape(x)
    if not shape or shape[-1] != ratio:
        raise ShapeError(f"bitcast_convert_type: {have}[{', '.join(map(str, shape))}] to {dtype} needs a last axis of "
                         f"{ratio} (the {have}s of one {dtype})", user_site())
    wide = astype(bits, _UNSIGNED[dtype.itemsize])
    whole = wide[..., 0]
    for k in range(1, ratio):
        whole = bitwise_or(whole, shift_left(wide[..., k], step * k))
    return bitcast_convert_type(whole, dtype)
