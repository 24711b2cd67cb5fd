"""Runnable examples: `python -m fgrad.examples.<name>`."""
