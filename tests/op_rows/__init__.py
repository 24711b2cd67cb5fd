"""The op table's rows for the NumPy / jax.numpy surface, one module per family."""

from op_rows import (
    bitwise, convolution, creation, elementwise, extras, indexing, products, random, reductions, shapes,
)

FAMILIES = (elementwise, bitwise, random, reductions, indexing, shapes, creation, products, convolution, extras)
