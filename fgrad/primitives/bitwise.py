"""Bitwise primitives: and, or, xor, not, shifts, and bit casts between dtypes of one width.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

__all__: list[str] = [  # re-exported by fgrad.primitives
]
