"""The primitives: one block each, holding all of it.

A block declares the primitive (name, abstract evaluation, NumPy
implementation: what `interpret` runs) and registers, next to it, its rule in
each interpretation's table: reverse mode (`vjp_rules`, fgrad/transforms/autodiff.py),
algebraic identities (`simplify_rules`, fgrad/transforms/passes.py) and the WGSL
lowering (`lowerings`: kernel kind and WGSL, fgrad/lower/kinds.py). Primitives
are strict: elementwise ones take operands of one shape and one dtype. The
public functions (fgrad/numpy/) promote, broadcast and validate, then bind
primitives, so every broadcast and cast is a visible node in the graph.
"""

# ---------------------------------------------------------------------------
# Primitives: one block each
# ---------------------------------------------------------------------------
# A VJP rule is `vjp(g, ans, *inputs, **params) -> one cotangent (or None)
# per input`, written with the public functions (fnp) so that it can be
# differentiated again. A simplify rule is `simplify(node, nodes) -> an
# existing node id, a replacement Node, or None` (fgrad/transforms/passes.py).
# A lowering is a kernel kind and a WGSL rule (fgrad/lower/kinds.py).

from fgrad.primitives import (
    bitwise, callbacks, calls, control_flow, convolution, elementwise, indexing, linalg, parallel, reductions, shapes,
)
from fgrad.primitives.elementwise import *  # noqa: F403
from fgrad.primitives.reductions import *  # noqa: F403
from fgrad.primitives.shapes import *  # noqa: F403
from fgrad.primitives.linalg import *  # noqa: F403
from fgrad.primitives.indexing import *  # noqa: F403
from fgrad.primitives.bitwise import *  # noqa: F403
from fgrad.primitives.convolution import *  # noqa: F403
from fgrad.primitives.control_flow import *  # noqa: F403
from fgrad.primitives.calls import *  # noqa: F403
from fgrad.primitives.callbacks import *  # noqa: F403
from fgrad.primitives.parallel import *  # noqa: F403

__all__ = sorted({*elementwise.__all__, *reductions.__all__, *shapes.__all__, *linalg.__all__, *indexing.__all__,
                  *bitwise.__all__, *convolution.__all__, *control_flow.__all__, *calls.__all__,
                  *callbacks.__all__, *parallel.__all__})
