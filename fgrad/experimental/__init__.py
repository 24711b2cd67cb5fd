"""`jax.experimental`'s names that fgrad has: `io_callback`, and `ode.odeint`."""

from fgrad.callbacks import io_callback
from fgrad.experimental import ode

__all__ = ["io_callback", "ode"]
