"""Lowering without a GPU: golden WGSL, fusion, the buffer plan and adapter limits."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import fgrad as fg
from fgrad.lower import Limits, lower
from fgrad.lower.fusion import is_buffer_source
from fgrad.runtime import Executable
from op_table import OP_CASES, make, trace

# One golden per primitive: its first row in the op table.
FIRST_ROWS = {}
for _case in OP_CASES:
    FIRST_ROWS.setdefault(_case.prim, _case)


def _chain(x, y):
    return fg.tanh(x * 2.0 + y) - fg.exp(-x)


def _softmax_ce(logits, labels):
    return -fg.mean(fg.sum(fg.log_softmax(logits) * fg.one_hot(labels, 5), axis=-1))


def _attention_scores(q, k):
    s = q @ k.transpose(0, 2, 1) / 2.0
    return fg.softmax(fg.where(fg.causal_mask(4), s, -1e9))


CHAINS = {
    "chain_broadcast": (_chain, (fg.spec((3, 4)), fg.spec(4))),
    "chain_softmax_cross_entropy": (_softmax_ce, (fg.spec((6, 5)), fg.spec(6, "i32"))),
    "chain_causal_attention": (_attention_scores, (fg.spec((2, 4, 3)), fg.spec((2, 4, 3)))),
    "chain_embedding": (lambda wte, wpe, tok: wte[tok] + wpe, (fg.spec((7, 3)), fg.spec((4, 3)), fg.spec((2, 4), "i32"))),
}


def _program_text(graph: fg.Graph) -> str:
    return "\n".join(k.wgsl for k in lower(graph).kernels)


@pytest.mark.parametrize("prim", sorted(FIRST_ROWS))
def test_golden_primitive(prim, golden):
    case = FIRST_ROWS[prim]
    golden(f"op_{prim}", _program_text(trace(case, make(case))))


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_golden_chain(name, golden):
    fn, specs = CHAINS[name]
    golden(name, _program_text(fg.trace(fn, *specs)))


def test_golden_scan_of_a_fold(golden):
    """A loop whose body folds: its step's kernels once per iteration, with the counter's kernels
    (an elementwise body is one kernel: op_scan)."""
    def fn(c, xs):
        return fg.lax.scan(lambda c, x: (c * 0.5 + fg.sum(c * x), None), c, xs)[0]

    golden("scan_of_a_fold", _program_text(fg.trace(fn, fg.spec(3), fg.spec((2, 3)))))


def test_golden_while_of_a_fold(golden):
    """A while loop whose predicate folds its carry: the predicate's kernels, then the body's,
    which the host runs while it reads the predicate true (a predicate of a counter alone, with
    an elementwise body, is one kernel: op_while)."""
    def fn(x):
        return fg.lax.while_loop(lambda v: v.sum() < 100.0, lambda v: v * 2.0 + 1.0, x)

    golden("while_of_a_fold", _program_text(fg.trace(fn, fg.spec(3))))


# Rows longer than a workgroup: a cumsum scanned by a workgroup per row, block by block; an
# argmax folded by a workgroup per result.
LONG_ROWS = {
    "skeleton_scan_reverse": lambda x: fg.cumsum(x * 2.0, -1, reverse=True),
    "skeleton_argmax_cooperative": lambda x: fg.argmax(x, -1),
}


@pytest.mark.parametrize("name", sorted(LONG_ROWS))
def test_golden_long_rows(name, golden):
    program = lower(fg.trace(LONG_ROWS[name], fg.spec((3, 300))))
    assert [k.grid for k in program.kernels] == [(3, 1, 1)]
    golden(name, "\n".join(k.wgsl for k in program.kernels))


def test_golden_held_rows(golden):
    """A softmax over rows of 256: a workgroup of 64 per row, each invocation loading its 4 values
    of the row once, for the max, the sum and the store."""
    program = lower(fg.trace(lambda x: fg.softmax(x * 2.0, axis=-1), fg.spec((3, 256))))
    assert [k.grid for k in program.kernels] == [(3, 1, 1)]
    # its 4 values, and the row's first once more, computed ahead of the folds (as any fold's operand)
    assert program.kernels[0].wgsl.count("b0[") == 5
    golden("skeleton_held_rows", "\n".join(k.wgsl for k in program.kernels))


def test_golden_rows_by_subgroups(golden):
    """Where the adapter has subgroup operations, a row's shares combine by exchanges within each
    subgroup, then across subgroups in one pass through shared memory (an argmax: its value, then
    the least index holding it)."""
    program = lower(fg.trace(lambda x: fg.argmax(x * 2.0, -1), fg.spec((3, 256))), Limits(subgroups=True))
    wgsl = program.kernels[0].wgsl
    assert "subgroupShuffleXor" in wgsl and "@builtin(subgroup_size) sg_size: u32" in wgsl
    assert wgsl.count("workgroupBarrier();") == 4  # two combines, each one barrier and one before reuse
    golden("skeleton_rows_subgroups", "\n".join(k.wgsl for k in program.kernels))


def _layer_norm_statistics(x):
    """A layer norm keeping what its backward pass reads: the centred rows, the mean and the
    reciprocal standard deviation."""
    mu = fg.mean(x, axis=-1, keepdims=True)
    centred = x - mu
    rstd = fg.rsqrt(fg.mean(centred * centred, axis=-1) + 1e-5)
    return centred * rstd[..., None] * 2.0 + 1.0, centred, mu, rstd


def test_golden_rows_with_values_per_row(golden):
    """Roots of whole rows and of one value per row, kept or not, in one kernel walking the rows:
    a layer norm's output with its statistics. Each invocation holds its 4 values of a row of 128;
    the first invocation of each row stores the row's values."""
    program = lower(fg.trace(_layer_norm_statistics, fg.spec((3, 128))))
    (kernel,) = program.kernels
    assert kernel.grid == (3, 1, 1)
    assert [program.graph.nodes[r].spec.shape for r in kernel.roots] == [(3, 1), (3, 128), (3,), (3, 128)]
    golden("skeleton_rows_per_row", kernel.wgsl)


def test_golden_columns(golden):
    """A column sum with an epilogue: a workgroup per 32 adjacent columns, 8 invocations folding
    each (300 rows, no power of two of 8 or more divides them: one pass)."""
    program = lower(fg.trace(lambda x: fg.sum(x, axis=0) * 2.0, fg.spec((300, 40))))
    assert [k.grid for k in program.kernels] == [(2, 1, 1)]
    golden("skeleton_columns", "\n".join(k.wgsl for k in program.kernels))


def test_golden_matmul_with_column_sums(golden):
    """The tiled matmul whose result is an elementwise chain's input and whose column sums it
    computes (a bias's gradient: the first pass, over chunks of 16 rows, joins the product): each
    invocation stores its 4 adjacent columns as one vec4 and sums them over its rows; the
    workgroup's rows of invocations meet in workgroup memory."""
    graph = fg.trace(fg.grad(lambda x, w, b, v: (fg.tanh(x @ w + b) @ v).sum(), argnums=2),
                     fg.spec((256, 32)), fg.spec((32, 64)), fg.spec(64), fg.spec((64, 16)))
    program = lower(graph, Limits(parallel_workgroups=2))
    (fused,) = [k for k in program.kernels if len(k.roots) > 1]
    assert [program.graph.nodes[r].spec.shape for r in fused.roots] == [(256, 64), (16, 64)]
    assert "var<storage, read_write> out0: array<vec4<f32>>;" in fused.wgsl
    golden("skeleton_matmul_column_sums", fused.wgsl)


def test_golden_split_weight_gradient(golden):
    """A weight gradient x.T @ dy over 1024 rows, split along k into 16 partial products then
    summed: the partial products load x's rows (their m axis, through the transpose and the
    reshape) and dy's rows (their n axis) as vec4s, A's on the first invocations and B's on the
    last, one vec4 each, stored as two vec2s of the blocks' rows in workgroup memory."""
    program = lower(fg.trace(lambda x, dy: x.T @ dy, fg.spec((1024, 64)), fg.spec((1024, 64))))
    assert [(k.name, k.grid) for k in program.kernels] == [("matmul", (2, 2, 16)), ("sum", (16, 1, 1))]
    wgsl = program.kernels[0].wgsl
    assert "b0: array<vec4<f32>>;" in wgsl and "b1: array<vec4<f32>>;" in wgsl and ".zw;" in wgsl
    golden("skeleton_matmul_split_vec4", wgsl)


def test_argmax_over_a_long_leading_axis_stays_one_pass():
    """A sum over 4096 rows is split into two passes; an argmax, which would have to carry
    indices through the first, is not."""
    spec = fg.spec((4096, 8))
    assert len(lower(fg.trace(lambda x: fg.sum(x, 0), spec)).kernels) == 2
    assert [k.name for k in lower(fg.trace(lambda x: fg.argmax(x, 0), spec)).kernels] == ["argmax"]


def test_wgsl_is_deterministic_and_headed():
    fn, specs = CHAINS["chain_causal_attention"]
    a, b = lower(fg.trace(fn, *specs)), lower(fg.trace(fn, *specs))
    assert [k.wgsl for k in a.kernels] == [k.wgsl for k in b.kernels]
    for k in a.kernels:
        assert k.wgsl.startswith(f"// fgrad: {k.name} ")


def test_elementwise_chain_with_broadcasts_is_one_kernel():
    program = lower(fg.trace(_chain, fg.spec((3, 4)), fg.spec(4)))
    assert len(program.kernels) == 1
    assert {"mul", "add", "tanh", "exp", "sub"} <= {program.graph.nodes[i].op for i in program.kernels[0].nodes}


def test_reduction_fuses_its_prologue_and_matmul_reads_a_transpose_in_place():
    program = lower(fg.trace(lambda a, b: fg.sum(fg.exp(a @ b.T) * 2.0, axis=1), fg.spec((3, 4)), fg.spec((5, 4))))
    ops = [[program.graph.nodes[i].op for i in k.nodes] for k in program.kernels]
    assert ops[0][-1] == "matmul" and "transpose" in ops[0]
    assert ops[1][-1] == "sum" and "exp" in ops[1]
    assert len(program.kernels) == 2


def test_shared_elementwise_value_is_materialized_once():
    program = lower(fg.trace(lambda x: (fg.sum(fg.exp(x)), fg.max(fg.exp(x))), fg.spec(8)))
    exp_kernels = [k for k in program.kernels if any(program.graph.nodes[i].op == "exp" for i in k.nodes)]
    assert len(exp_kernels) == 1


@pytest.mark.parametrize("shape", [(4, 8), (6,)])  # lanes of a row of vec4s, and one element an invocation
def test_outputs_of_one_kernel_compute_what_they_share_once(shape):
    """Each of several outputs of one elementwise kernel reads the same chain of values: the
    kernel computes it once, not once per output (the kernel of a loop's unrolled steps, whose
    many outputs share ever longer chains, would otherwise grow to megabytes of WGSL)."""
    def steps(x):
        outs = []
        for _ in range(6):
            x = fg.exp(x) * 0.5
            outs.append(x)
        return tuple(outs)
    program = lower(fg.trace(steps, fg.spec(shape)), Limits(max_storage_buffers_per_shader_stage=16))
    (kernel,) = program.kernels
    assert len(kernel.writes) == 6
    lanes = 4 if len(shape) == 2 else 1
    assert kernel.wgsl.count("= exp_f32(") == 6 * lanes

def test_large_outputs_use_a_2d_grid():
    limits = Limits(max_compute_workgroups_per_dimension=65535, max_storage_buffer_binding_size=1 << 30)
    program = lower(fg.trace(lambda x: x + 1.0, fg.spec((16800, 4096))), limits)
    (kernel,) = program.kernels
    x, y, z = kernel.grid
    assert x == 65535 and y == 2 and z == 1 and x * y * 256 * 4 >= 16800 * 4096  # 4 elements an invocation
    assert f"gid.y * {65535 * 256}u" in kernel.wgsl


def _bindings(kernel):
    return len(kernel.reads) + 1


@pytest.mark.parametrize("width", [3, 7, 20])
def test_kernels_respect_the_storage_buffer_limit(width):
    specs = [fg.spec((2, 3))] * width
    limits = Limits(max_storage_buffers_per_shader_stage=4)
    for fn in (lambda *xs: sum(xs[1:], xs[0]), lambda *xs: fg.concatenate(xs, axis=1)):
        program = lower(fg.trace(fn, *specs), limits)
        assert max(_bindings(k) for k in program.kernels) <= 4
        fg.typecheck(program.graph)


def test_tensor_over_the_binding_size_is_a_compile_error():
    def f(x):
        return fg.exp(fg.broadcast_to(x, (100, 100)))

    small = Limits(max_storage_buffer_binding_size=1000)
    with pytest.raises(fg.CompileError, match=r"lower: tensor f32\[100,100\] \(exp, 40000 bytes\) .* 1000 bytes") as e:
        lower(fg.trace(f, fg.spec(100)), small)
    assert f"test_lower.py:{f.__code__.co_firstlineno + 1}" in str(e.value)
    with pytest.raises(fg.CompileError, match=r"lower: tensor f32\[100,100\] \(input x, 40000 bytes\)"):
        lower(fg.trace(f, fg.spec((100, 100))), small)


def test_buffer_plan_reuses_dead_intermediates():
    def deep(x):
        for _ in range(6):
            x = fg.softmax(x @ x.T, axis=-1)  # each step: a matmul and a softmax kernel
        return x

    program = lower(fg.trace(deep, fg.spec((16, 16))))
    scratch = [b for b in program.buffers if b.kind == "scratch"]
    assert len(program.kernels) == 12
    assert len(scratch) <= 2
    assert sum(b.size for b in scratch) < program.intermediate_bytes


def _check_plan(program):
    """Replay the plan: every buffer a kernel reads must still hold the value it expects."""
    graph = program.graph
    roots = {r for k in program.kernels for r in k.roots}
    holds = {b: i for i, b in zip(graph.inputs, program.inputs)}
    holds.update({b: ("constant", b) for b, buf in enumerate(program.buffers) if buf.kind == "constant"})
    for k in program.kernels:
        inside = set(k.nodes)
        read_nodes = sorted({j for i in k.nodes for j in graph.nodes[i].inputs if j not in inside
                             and (j in roots or is_buffer_source(graph, j))})
        input_buffer = dict(zip(graph.inputs, program.inputs))
        in_place = [j for j in read_nodes if input_buffer.get(j) in k.writes]  # donated, updated in place
        for j in in_place:
            assert holds[input_buffer[j]] == j and j in dict(zip(graph.inputs, range(len(graph.inputs))))
        read_nodes = [j for j in read_nodes if j not in in_place]
        assert len(read_nodes) == len(k.reads)
        for j, b in zip(read_nodes, k.reads):
            assert holds.get(b) in (j, ("constant", b)), f"kernel {k.name} reads node {j} from buffer {b}, which holds {holds.get(b)}"
        assert not set(k.writes) & set(k.reads) and len(set(k.writes)) == len(k.writes)
        holds.update(zip(k.writes, k.roots))


def test_buffer_plan_never_shares_a_slot_between_live_values():
    def skip(x):
        a = fg.exp(x @ x)
        b = fg.tanh(a @ a)
        c = b @ b
        return fg.sum(c @ a + b)  # a and b are still live when c is computed

    program = lower(fg.trace(skip, fg.spec((4, 4))))
    _check_plan(program)
    assert any(program.buffers[b].kind == "scratch" for k in program.kernels for b in k.writes)


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_buffer_plans_of_chains_replay_correctly(name):
    fn, specs = CHAINS[name]
    _check_plan(lower(fg.grad(fg.trace(lambda *a: fg.sum(fn(*a)), *specs)) if name != "chain_softmax_cross_entropy"
                      else fg.trace(fn, *specs)))


def test_buffer_plan_of_a_transformer_training_step_replays_correctly():
    """Kernels merged out of order, split reductions and in-place donated updates all keep
    every read seeing the value it expects (on a GPU's tiling too)."""
    from test_autodiff import transformer_args, transformer_loss

    params, tokens = transformer_args(V=7, T=8, D=16)
    step = fg.adam_step(fg.trace(transformer_loss, params, tokens))
    donated = frozenset(range(len(step.inputs) - 1))
    for parallel in (2, 192):
        program = lower(step, dataclasses.replace(Limits(max_storage_buffers_per_shader_stage=16),
                                                  parallel_workgroups=parallel), donated)
        assert any(len(k.roots) > 1 for k in program.kernels)
        _check_plan(program)


@pytest.mark.parametrize("batch, k, n", [((), 7, 5), ((), 576, 130), ((3,), 33, 70), ((2, 1), 64, 64)])
def test_a_row_vector_times_a_matrix_runs_in_the_vector_kernel(batch, k, n):
    """Products of one row (a decode step's) run in the matrix-vector kernel, with the epilogue."""
    rng = np.random.default_rng(k)
    x = rng.normal(size=(*batch, 1, k)).astype(np.float32)
    w, b = rng.normal(size=(k, n)).astype(np.float32), rng.normal(size=n).astype(np.float32)
    graph = fg.trace(lambda x, w, b: fg.tanh(x @ w + b), x, w, b)
    # Lowered for a GPU: a CPU adapter's own compile picks the kernel of fgrad/lower/matmul_cpu.py.
    program = lower(graph, dataclasses.replace(fg.default_device().limits, cpu=False))
    assert any("var<workgroup> part" in kernel.wgsl for kernel in program.kernels)
    np.testing.assert_allclose(np.asarray(Executable(program)(x, w, b)), np.tanh(x.astype(np.float64) @ w + b),
                               rtol=1e-5, atol=1e-5)
