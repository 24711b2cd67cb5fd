"""What the examples share: choosing the device from a flag, and a progress bar."""

from __future__ import annotations

import os
import sys
import time


def use_device(name: str | None) -> None:
    """Pick the adapter whose name contains `name` (before fgrad opens a device)."""
    if name:
        os.environ["FGRAD_ADAPTER"] = name


class Progress:
    """A one-line progress bar: step, loss and tokens per second, redrawn in place."""

    def __init__(self, total: int, tokens_per_step: int, width: int = 24):
        self.total, self.tokens_per_step, self.width = total, tokens_per_step, width
        self.start = time.perf_counter()
        self.tty = sys.stdout.isatty()

    def update(self, step: int, loss: float) -> None:
        elapsed = time.perf_counter() - self.start
        done = int(self.width * step / self.total)
        rate = step * self.tokens_per_step / elapsed if elapsed > 0 else 0.0
        line = (f"step {step:>5}/{self.total} [{'#' * done}{'.' * (self.width - done)}] "
                f"loss {loss:.3f}  {rate:,.0f} tokens/s  {elapsed:.0f}s")
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n", flush=True)

    def close(self) -> None:
        if self.tty:
            print()
