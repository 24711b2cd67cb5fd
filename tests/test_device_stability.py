"""One process, one device, thousands of programs: the device must outlive them all.

wgpu-py reads buffers back through a poll thread of its own, so the device is
used from two threads. The script runs in a subprocess: a native abort there
is a failed test here, not a dead test run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

PROGRAMS = 2000

# Each program has its own constants and shape, so each makes a new pipeline. It runs on
# the default device and on the device opened again by its name, and its three results are
# read back from the two in turn; the adapters are listed after each program. Every value is
# checked against NumPy.
SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import fgrad as fg
    from fgrad.runtime import _open

    name = fg.default_device().name
    both = (fg.default_device(), _open(name))
    for i in range(int(sys.argv[1])):
        n, c = 1 + i % 7, float(i)
        x = np.arange(n, dtype=np.float32)
        graph = fg.trace(lambda v, c=c: (v * 2.0 + c, v - c, v * c), fg.spec(n))
        runs = [fg.compile(graph, device)(x) for device in both]
        for k, want in enumerate((x * 2.0 + c, x - c, x * c)):
            for device, outs in zip(both, runs):
                got = np.asarray(outs[k])
                if not np.array_equal(got, want):
                    sys.exit(f"program {i} on {device}: result {k} is {got}, expected {want}")
        if name not in fg.adapters():
            sys.exit(f"program {i}: {name} is missing from fg.adapters()")
    print("ran", i + 1)
""")


def test_thousands_of_programs_in_one_process():
    env = {**os.environ, "FGRAD_CACHE_DIR": ""}  # no disk cache: every program is lowered and built anew
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(PROGRAMS)], env=env, capture_output=True, text=True,
                          timeout=600)
    # the output less a native panic's backtrace frames, so the panic's message shows
    lines = [ln for ln in (done.stdout + done.stderr).splitlines() if not re.match(r"\s+(\d+:|at )", ln)]
    tail = "\n".join(lines[-25:])
    assert done.returncode == 0, f"exit status {done.returncode}:\n{tail}"
    assert f"ran {PROGRAMS}" in done.stdout, tail
