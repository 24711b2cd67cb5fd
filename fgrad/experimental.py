"""`jax.experimental`'s names that fgrad has: `io_callback`."""

from fgrad.callbacks import io_callback

__all__ = ["io_callback"]
