"""`jax.scipy`'s names for fgrad's functions, for real inputs, written with fgrad's functions, so
everything traces, differentiates and compiles to WGSL:
- `fg.scipy.special`: gamma and beta functions, complete and incomplete, the normal
  distribution's functions, Bessel functions, entropies, zeta;
- `fg.scipy.stats`: one module per distribution (densities or masses, distribution and quantile
  functions), and `gaussian_kde`, `mode`, `rankdata`, `sem`;
- `fg.scipy.linalg`: factorizations and solvers (Cholesky, LU, QR, eigh, SVD, polar,
  Hessenberg), `expm`, and the matrix constructors;
- `fg.scipy.signal`: convolution and correlation, `detrend`, `welch`;
- `fg.scipy.integrate` (`trapezoid`), `fg.scipy.interpolate` (`RegularGridInterpolator`),
  `fg.scipy.ndimage` (`map_coordinates`) and `fg.scipy.cluster.vq`;
- `fg.scipy.optimize`: `minimize` by BFGS or L-BFGS;
- `fg.scipy.sparse.linalg`: the iterative solvers `cg`, `bicgstab` and `gmres`.
fgrad has no complex dtype and no FFT: what needs them (signal's stft, istft and csd, eig,
schur, sqrtm) is not provided."""

from fgrad.scipy import cluster, integrate, interpolate, linalg, ndimage, optimize, signal, sparse, special, stats

__all__ = ["cluster", "integrate", "interpolate", "linalg", "ndimage", "optimize", "signal", "sparse", "special",
           "stats"]
