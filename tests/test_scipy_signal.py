"""fg.scipy.signal against jax.scipy.signal: convolutions and correlations (N-d, 2-d, fftconvolve
with and without axes) in every mode and operand order, and detrend, eagerly and compiled to WGSL,
their derivatives against JAX's and finite differences, vmap, and the refusals."""

from __future__ import annotations

import jax
import jax.scipy.signal as jsig
import numpy as np
import pytest

import fgrad as fg
import fgrad.scipy.signal as signal
from jax_oracle import Draws, jax_call, same, table_params

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

d = Draws(47)
MODES = ("full", "same", "valid")
A1, B1 = d.f32(9), d.f32(4)  # 1-d: longer first, then shorter first
A2, B2 = d.f32(5, 6), d.f32(2, 3)
EVEN2 = d.f32(4, 4)  # even kernel sizes: where 'same' centring differs between conventions
A3, B3 = d.f32(4, 3, 5), d.f32(2, 3, 2)
INTS1, INTS2 = d.i32(7), d.i32(3)  # integers compute in f32
ODD_A, ODD_B = d.f32(3, 6), d.f32(5, 2)  # neither larger: fftconvolve 'full' and 'same' only
LINE = d.f32(3, 12)


def modes(*pairs: tuple) -> list[tuple]:
    """Each operand pair in each mode."""
    return [(*pair, mode) for pair in pairs for mode in MODES]


# (name, ours, JAX's, argument sets)
ROWS = [
    ("convolve", signal.convolve, jsig.convolve,
     modes((A1, B1), (B1, A1), (A2, B2), (B2, A2), (A2, EVEN2[:, :3]), (A3, B3), (INTS1, INTS2), (A2, A2))),
    ("convolve method", lambda a, b, m: signal.convolve(a, b, "same", method=m),
     lambda a, b, m: jsig.convolve(a, b, "same", method=m), [(A2, B2, "direct"), (A2, B2, "fft")]),
    ("correlate", signal.correlate, jsig.correlate, modes((A1, B1), (B1, A1), (A2, EVEN2[:, :3]), (B3, A3))),
    ("convolve2d", signal.convolve2d, jsig.convolve2d, modes((A2, B2), (B2, A2), (EVEN2, A2[:2, :2]))),
    ("correlate2d", signal.correlate2d, jsig.correlate2d,
     modes((A2, B2), (B2, A2), (A2, EVEN2[:, :3]), (EVEN2[:2, :3], A2), (EVEN2, EVEN2[::-1]))),
    ("fftconvolve", signal.fftconvolve, jsig.fftconvolve,
     modes((A1, B1), (B2, A2), (A3, B3)) + [(ODD_A, ODD_B, "full"), (ODD_A, ODD_B, "same")]),
    ("fftconvolve axes", lambda a, b, m, ax: signal.fftconvolve(a, b, m, axes=ax),
     lambda a, b, m, ax: jsig.fftconvolve(a, b, m, axes=ax),
     [(A3, B3[:, :, :1].repeat(5, 2), m, ax) for m in MODES for ax in [(0, 1), (1, 0)]] +
     [(A3, B3, m, (0, -1)) for m in MODES] + [(A2, d.f32(5, 6), "full", ())]),
    ("detrend", lambda x, kw: signal.detrend(x, **kw), lambda x, kw: jsig.detrend(x, **kw),
     [(LINE, kw) for kw in [{"type": "constant", "axis": 0}, {"axis": 0}, {"bp": np.array([0, 6, 12])}]] +
     [(INTS1, {}), (d.f32(2, 1), {})]),
]


@pytest.mark.parametrize("ours, theirs, args, name", table_params(ROWS))
def test_values_match_jax_scipy_signal(ours, theirs, args, name):
    same(ours(*args), jax_call(theirs, *args), name, 2e-5, 2e-5, oracle="jax.scipy.signal")


@pytest.mark.parametrize("name, fn, args", [
    ("convolve", lambda a, b: signal.convolve(a, b, "same"), (A2, B2)),
    ("correlate2d", lambda a, b: signal.correlate2d(a, b, "valid"), (A2, B2)),
    ("fftconvolve axes", lambda a, b: signal.fftconvolve(a, b, axes=(0, 2)), (A3, B3[:, :, :1].repeat(5, 2)[:, :, :5])),
    ("detrend", lambda x: signal.detrend(x, bp=[4, 9]), (LINE,)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_compiled_values_match_the_eager_ones(name, fn, args):
    same(fg.jit(fn)(*args), fn(*args), f"{name} compiled", 1e-5, 1e-5)


def test_fftconvolve_axes_batch_what_is_not_convolved():
    """Along an axis left out of `axes` the two arrays must agree in size; JAX refuses in2 of size 1
    there too (it maps the axis with vmap, not broadcasting)."""
    a, b = A3, B3[:, :, :1].repeat(5, 2)
    got = signal.fftconvolve(a, b, axes=(0, 2))
    want = jax_call(jsig.fftconvolve, a, b, axes=(0, 2))
    same(got, want, "fftconvolve axes=(0, 2)", 2e-5, 2e-5, oracle="jax.scipy.signal")
    assert got.shape == (5, 3, 9)


@pytest.mark.parametrize("name, ours, theirs, args", [
    ("convolve", lambda a, b: signal.convolve(a, b, "same"), lambda a, b: jsig.convolve(a, b, "same"), (A2, B2)),
    ("correlate2d", lambda a, b: signal.correlate2d(a, b, "full"), lambda a, b: jsig.correlate2d(a, b, "full"),
     (B2, A2)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_gradients_match_jax(name, ours, theirs, args):
    """The gradient of a weighted sum of the output in every operand, as jax.grad gives it."""
    w = d.f32(*np.shape(jax_call(theirs, *args)))
    got = fg.grad(lambda *a: fg.numpy.sum(ours(*a) * w), argnums=tuple(range(len(args))))(*args)
    want = jax_call(jax.grad(lambda *a: (theirs(*a) * w).sum(), argnums=tuple(range(len(args)))), *args)
    same(got, want, f"grad {name}", 2e-5, 2e-5, oracle="jax.grad")


def test_derivatives_match_finite_differences():
    fg.check_grads(lambda a, b: signal.fftconvolve(a, b, "valid", axes=-1), (A2, d.f32(5, 3)), order=2)
    fg.check_grads(lambda x: signal.detrend(x, bp=[2, 6]), (LINE[:, :9],))


def test_batched_over_vmap():
    xs = d.f32(3, 7)
    got = fg.vmap(lambda x: signal.convolve(x, B1, "same"))(xs)
    same(got, jax_call(jax.vmap(lambda x: jsig.convolve(x, B1, "same")), xs), "vmap convolve", 2e-5, 2e-5,
         oracle="jax.scipy.signal")
    got = fg.vmap(lambda x: signal.detrend(x), in_axes=1)(xs)
    same(got, jax_call(jax.vmap(jsig.detrend, in_axes=1), xs), "vmap detrend", 2e-5, 2e-5, oracle="jax.scipy.signal")


@pytest.mark.parametrize("call, error, words", [
    (lambda: signal.convolve(A1, B1, "middle"), fg.ShapeError, r"^convolve: mode 'middle'"),
    (lambda: signal.convolve(A1, B2), fg.ShapeError, r"^convolve: .*same number of dimensions"),
    (lambda: signal.convolve(ODD_A, ODD_B), fg.ShapeError, r"^convolve: .*smaller than the other"),
    (lambda: signal.convolve(A1, np.zeros(0, np.float32)), fg.ShapeError, r"^convolve: zero-size"),
    (lambda: signal.convolve(A1, B1, method="overlap-add"), fg.InputError, r"^convolve: method"),
    (lambda: signal.correlate(A1, B1, method="fast"), fg.InputError, r"^correlate: method"),
    (lambda: signal.correlate(A1, B1, "middle"), fg.ShapeError, r"^correlate: mode"),
    (lambda: signal.convolve2d(A2, B2, boundary="wrap"), fg.InputError, r"^convolve2d: only boundary='fill'"),
    (lambda: signal.correlate2d(A2, B2, fillvalue=1.0), fg.InputError, r"^correlate2d: only boundary='fill'"),
    (lambda: signal.convolve2d(A3, B3), fg.ShapeError, r"^convolve2d: takes 2-d inputs"),
    (lambda: signal.fftconvolve(ODD_A, ODD_B, "valid"), fg.ShapeError, r"^fftconvolve: for 'valid' mode"),
    (lambda: signal.fftconvolve(A2, B2, axes=0), fg.ShapeError, r"^fftconvolve: .*not convolved"),
    (lambda: signal.fftconvolve(A2, B2, axes=2), fg.ShapeError, r"^fftconvolve: axis 2 is out of range"),
    (lambda: signal.detrend(LINE, type="quadratic"), fg.InputError, r"^detrend: type 'quadratic'"),
    (lambda: signal.detrend(LINE, bp=13), fg.InputError, r"^detrend: breakpoints"),
    (lambda: signal.detrend(LINE, overwrite_data=True), fg.InputError, r"^detrend: overwrite_data"),
    (lambda: signal.detrend(LINE, axis=2), fg.ShapeError, r"^detrend: axis 2"),
])
def test_refusals_name_the_function_and_the_user_s_line(call, error, words):
    with pytest.raises(error, match=words) as info:
        call()
    assert "test_scipy_signal.py:" in str(info.value)


SIGNAL = d.f32(2, 3, 100)
WELCH = [
    {}, {"nperseg": 32}, {"nperseg": 32, "axis": 1}, {"nperseg": 16, "return_onesided": False},
    {"nperseg": 33, "nfft": 40, "noverlap": 5}, {"nperseg": 32, "average": "median"}, {"nperseg": 300},
    {"nperseg": 20, "detrend": "linear", "scaling": "spectrum", "fs": 3.0}, {"nperseg": 20, "detrend": False},
    {"window": "hamming", "nperseg": 24}, {"window": ("tukey", 0.3), "nperseg": 25, "nfft": 31},
    {"window": np.arange(1.0, 11.0), "noverlap": 9}, {"nperseg": 1, "noverlap": 0},
    {"nperseg": 33, "return_onesided": False},
]


@pytest.mark.parametrize("options", [pytest.param(o, id=str(k)) for k, o in enumerate(WELCH)])
def test_welch_is_jax_s(options):
    """Frequencies and densities as JAX's: windows by name, tuple or array, overlaps, padding
    (nfft), one- and two-sided, each detrend and scaling, mean and median, along any axis."""
    x = SIGNAL.transpose(0, 2, 1) if options.get("axis") == 1 else SIGNAL
    want = jax_call(lambda x: jsig.welch(x, **options), x)
    same(signal.welch(x, **options), want, f"welch {options}", 2e-5, 1e-7, oracle="jax.scipy.signal")


def test_welch_compiles_differentiates_and_refuses():
    x = SIGNAL[0]
    want = jax_call(lambda x: jsig.welch(x, nperseg=16)[1], x)
    same(fg.jit(lambda x: signal.welch(x, nperseg=16)[1])(x).numpy(), want, "welch compiled", 2e-5, 1e-7)
    weights = np.arange(9, dtype=np.float32)
    same(fg.grad(lambda x: fg.sum(signal.welch(x, nperseg=16)[1] * weights))(x),
         jax_call(jax.grad(lambda x: (jsig.welch(x, nperseg=16)[1] * weights).sum()), x), "welch gradient", 2e-5, 1e-6)
    same(signal.welch(np.arange(20), nperseg=8), jax_call(lambda x: jsig.welch(x, nperseg=8), np.arange(20)),
         "welch of integers", 2e-5, 1e-6)
    for options, match in (({"nperseg": 16, "noverlap": 16}, "noverlap=16 must be less than nperseg=16"),
                           ({"nperseg": 8, "nfft": 4}, "nfft=4 must be at least nperseg=8"),
                           ({"scaling": "x"}, "scaling 'x' must be 'density' or 'spectrum'"),
                           ({"average": "max"}, "average 'max' must be 'mean' or 'median'"),
                           ({"window": np.ones(5), "nperseg": 6}, "nperseg=6 differs from the window's length 5"),
                           ({"nperseg": 0}, "nperseg must be an integer of at least 1, got 0")):
        with pytest.raises(fg.InputError, match=f"welch: {match}"):
            signal.welch(x, **options)
