"""Op-table rows: linalg."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import B, F, F16, H, I, NZ, P, PH, S, T, U, Case, Fi, Hi, rounded  # noqa: F401

OP_ROWS: tuple[Case, ...] = ()  # every new primitive's rows (value, WGSL, VJP)
API_ROWS: tuple[Case, ...] = ()  # composites and argument forms of the public functions
F16_ROWS: tuple[Case, ...] = ()  # f16 rows of float primitives
U32_ROWS: tuple[Case, ...] = ()  # u32 rows of integer primitives
