"""fg.export.to_onnx: every op-table row whose primitives have ONNX rules runs in onnxruntime with
interpret's results; a row holding one without is refused with an error naming it; the gpt forward."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import fgrad as fg  # noqa: E402
from fgrad.export import to_onnx  # noqa: E402
from fgrad.export.onnx import onnx_rules  # noqa: E402
from op_table import DTYPE_CASES, OP_CASES, U32_CASES, make, trace  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

ROWS = [c for c in (*OP_CASES, *DTYPE_CASES, *U32_CASES) if c.specs is None]


def run(model, args):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {f"input{k}": np.asarray(a) for k, a in enumerate(args)}
    return session.run(None, feeds)


@pytest.mark.parametrize("case", ROWS, ids=[c.id for c in ROWS])
def test_row_exported_to_onnx_matches_interpret_or_names_its_missing_rule(case):
    args = make(case)
    graph = trace(case, args)
    missing = [n.op for n in graph.nodes if n.op != "input" and onnx_rules.get(n.op) is None]
    if missing:
        with pytest.raises(fg.InputError, match=f"no ONNX rule for the primitive {missing[0]} "):
            to_onnx(graph)
        return
    leaves = fg.tree_util.tree_leaves(args)
    (got,) = run(to_onnx(graph), leaves)
    want = np.asarray(fg.interpret(graph, *args))
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=max(case.rtol, 1e-5), atol=max(case.atol, 1e-6), err_msg=case.id)
    else:
        np.testing.assert_array_equal(got, want, err_msg=case.id)


def test_gpt_forward_runs_in_onnxruntime(tmp_path):
    config = fg.nn.GPTConfig(vocab=65, context=16, width=32, heads=2, layers=2)
    params = fg.nn.init_gpt(np.random.default_rng(0), config)
    tokens = np.random.default_rng(1).integers(0, 65, (2, 16)).astype(np.int32)
    graph = fg.trace(lambda p, t: fg.nn.gpt(p, t, config), params, tokens)
    path = tmp_path / "gpt.onnx"
    to_onnx(graph, path)
    model = onnx.load(str(path))
    # Stamped with opset 18's IR version, not the installed onnx package's newest, which a runtime
    # older than the package refuses.
    assert model.ir_version == 8 and [o.version for o in model.opset_import] == [18]
    (got,) = run(model, fg.tree_util.tree_leaves((params, tokens)))
    np.testing.assert_allclose(got, fg.interpret(graph, params, tokens), rtol=1e-4, atol=1e-5)
