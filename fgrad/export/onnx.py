"""Graph -> an ONNX model (opset 18) through the `onnx` package: one rule per primitive in
`onnx_rules`.

A rule takes the `Emitter` (which appends ONNX nodes and constants, names values and knows each
graph value's Spec), the fgrad node, and the names of its operands' values; it returns the name
of the node's value. Rules
reproduce `interpret`'s semantics with ONNX operators. A graph holding a primitive without a rule
is refused with an error naming it and where it was created, before anything is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from fgrad.errors import InputError
from fgrad.ir import DType, Graph, Node, RuleTable, Spec, call_params
from fgrad.trace import user_site

OPSET = 18
# The IR version of opset 18's release (ONNX 1.13): what a model needs, so that runtimes older than
# the installed `onnx` package (which would stamp its own, newest, IR version) load it.
IR_VERSION = 8
onnx_rules = RuleTable("to_onnx", "ONNX export rule", optional=True)


class Emitter:
    """The ONNX graph being written: nodes in order, constants as initializers, fresh names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.specs: dict[str, Any] = {}  # the fgrad Spec of each graph value's name: what rules read of operands
        self.count = 0

    def name(self, hint: str = "v") -> str:
        self.count += 1
        return f"{hint}{self.count}"

    def op(self, op_type: str, inputs: Sequence[str], outputs: int = 1, **attrs: Any) -> Any:
        """Append an ONNX node; its output name (a list of names for `outputs` > 1)."""
        names = [self.name() for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), names, **attrs))
        return names[0] if outputs == 1 else names

    def const(self, value: Any, dtype: Any = None) -> str:
        """A constant tensor (NumPy value, of `dtype` where given) as an initializer's name."""
        array = np.asarray(value, dtype=dtype)
        name = self.name("c")
        self.initializers.append(numpy_helper.from_array(array, name))
        return name


def dtype_of(node: Node) -> int:
    """The ONNX element type of a node's value."""
    return helper.np_dtype_to_tensor_dtype(node.spec.dtype.np)


def _held(node: Node) -> Node:
    """The node as the rules compute it: a bfloat16 value is held in an f32 (onnxruntime has few
    bfloat16 kernels), rounded to bfloat16 after each op, as a kernel holds it (DTypeRow.narrow)."""
    row = node.spec.dtype.row
    if not row.upper_half:
        return node
    return dataclasses.replace(node, spec=Spec(node.spec.shape, DType.of(row.stored)))


def _rounded(emit: Emitter, name: str, node: Node) -> str:
    """`name`, the value of `node` held wider (`_held`), rounded to the node's dtype and held again."""
    held = _held(node)
    if held is node:
        return name
    return emit.op("Cast", [emit.op("Cast", [name], to=dtype_of(node))], to=dtype_of(held))


def to_onnx(graph: Graph, path: str | Path | None = None) -> onnx.ModelProto:
    """The ONNX model computing `graph` (inputs and outputs named by the graph's argument paths and
    output positions); written to `path` where given. Raises InputError naming the first primitive
    without an ONNX rule, and the line that created it."""
    site = user_site()
    if not isinstance(graph, Graph):
        raise InputError(f"to_onnx: expected an fg Graph (fg.trace(fn, *args)), got a {type(graph).__name__}", site)
    for node in graph.nodes:
        if node.op != "input" and onnx_rules.get(node.op) is None:
            where = node.site or "an unknown line"
            raise InputError(f"to_onnx: no ONNX rule for the primitive {node.op} (created at {where})", site)
        if node.spec.symbols:
            raise InputError(f"to_onnx: {node.op} has symbolic dimensions {node.spec}; trace over concrete specs", site)
    emit = Emitter()
    names: list[str] = [""] * len(graph.nodes)
    inputs = []
    for k, (i, label) in enumerate(zip(graph.inputs, graph.input_names)):
        spec = graph.nodes[i].spec
        inputs.append(helper.make_tensor_value_info(f"input{k}", dtype_of(graph.nodes[i]), list(spec.shape)))
        inputs[-1].doc_string = label
        held = _held(graph.nodes[i])
        names[i] = f"input{k}" if held is graph.nodes[i] else emit.op("Cast", [f"input{k}"], to=dtype_of(held))
    for i, node in enumerate(graph.nodes):
        if node.op != "input":
            names[i] = _rounded(emit, onnx_rules[node.op](emit, _held(node), [names[j] for j in node.inputs],
                                                          **call_params(node)), node)
        emit.specs[names[i]] = _held(node).spec
    outputs = []
    for k, i in enumerate(graph.outputs):
        value = names[i] if _held(graph.nodes[i]) is graph.nodes[i] else \
            emit.op("Cast", [names[i]], to=dtype_of(graph.nodes[i]))
        emit.nodes.append(helper.make_node("Identity", [value], [f"output{k}"]))
        value = graph.nodes[i]
        outputs.append(helper.make_tensor_value_info(f"output{k}", dtype_of(value), list(value.spec.shape)))
    model = helper.make_model(helper.make_graph(emit.nodes, "fgrad", inputs, outputs, emit.initializers),
                              opset_imports=[helper.make_opsetid("", OPSET)], producer_name="fgrad",
                              ir_version=IR_VERSION)
    onnx.checker.check_model(model)
    if path is not None:
        onnx.save(model, str(path))
    return model


# The rules, one module per family of fgrad/primitives/; each registers its own in onnx_rules.
from fgrad.export import onnx_elementwise, onnx_structure  # noqa: E402

RULE_MODULES = (onnx_elementwise, onnx_structure)
