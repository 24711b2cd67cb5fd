"""The op table's rows for the NumPy / jax.numpy surface, one module per family."""

from op_rows import (
    bitwise, callbacks, calls, control_flow, convolution, creation, elementwise, extras, indexing, products, random, reductions,
    shapes,
)

FAMILIES = (elementwise, bitwise, random, reductions, indexing, shapes, creation, products, convolution, extras,
            control_flow, calls, callbacks)
