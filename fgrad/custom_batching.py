"""`jax.custom_batching`'s names: `custom_vmap`, a function with its own batching rule, and
`sequential_vmap`, one batched by a loop over the batch."""

from fgrad.transforms.custom import custom_vmap, sequential_vmap

__all__ = ["custom_vmap", "sequential_vmap"]
