"""Model families over fgrad's layers, and their checkpoint loaders.

`llama`: Llama-shaped decoders (Llama, Qwen2, Mistral) from Hugging Face checkpoints.
"""

from fgrad.models import llama

__all__ = ["llama"]
