"""Neural-network functions, as `jax.nn` and the functional layers of a model.

`activations.py` holds `jax.nn`'s functions, `multihead.py` its dot_product_attention and
`initializers.py` its `jax.nn.initializers`; `layers.py` the layers over parameter pytrees and
their NumPy-seeded initialisers; `pooling.py` windowed pooling.
"""

from __future__ import annotations

from fgrad.errors import name_errors_after

from fgrad.numpy import logsumexp, one_hot
from fgrad.nn import activations, initializers, multihead, pooling
from fgrad.nn.activations import *  # noqa: F403
from fgrad.nn.multihead import *  # noqa: F403
from fgrad.nn.pooling import *  # noqa: F403
from fgrad.nn.decoder import (
    RopeScaling, attention, decoder_block, init_decoder_block, rope, rope_frequencies, swiglu_mlp, update_cache,
)
from fgrad.nn.layers import (
    GPTConfig, Params, causal_self_attention, cross_entropy, embedding, gpt, he_normal, init_attention,
    init_block, init_embedding, init_gpt, init_layer_norm, init_linear, init_mlp, init_rms_norm,
    layer_norm, linear, mlp, normal, ones, rms_norm, shape_checked, transformer_block, zeros,
)

__all__ = [
    "GPTConfig", "Params", "causal_self_attention", "cross_entropy", "embedding", "gpt", "he_normal",
    "init_attention", "init_block", "init_embedding", "init_gpt", "init_layer_norm", "init_linear", "init_mlp",
    "init_rms_norm", "layer_norm", "linear", "logsumexp", "mlp", "normal", "one_hot", "ones",
    "rms_norm", "shape_checked", "transformer_block", "zeros",
    "RopeScaling", "attention", "decoder_block", "init_decoder_block", "rope", "rope_frequencies", "swiglu_mlp",
    "update_cache", "initializers",
    *activations.__all__, *multihead.__all__, *pooling.__all__,
]

name_errors_after(globals(), [*activations.__all__, *multihead.__all__, *pooling.__all__])
del name_errors_after  # not part of the namespace
