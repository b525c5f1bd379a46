"""The exact recursive Gaussian on dask arrays, chunk by chunk, with no halo.

    import dask.array as da
    import rfstudio.dask

    x = da.from_zarr("slide.zarr")                         # any chunking, numpy or CuPy chunks
    y = rfstudio.dask.gaussian_filter(x, sigma=200, mode="reflect")
    y.to_zarr("blurred.zarr")

The functions take rfstudio.ndimage's arguments (scipy.ndimage's) and give its result for the
whole array, to float rounding, at any sigma: also at a sigma far wider than a chunk, where a
halo of 4 sigma (dask-image's map_overlap) cannot be had.

How: a pass along one axis is a linear, shift-invariant filter whose impulse response g (the
causal and anticausal recursions together, then the difference of a derivative) is, away from
its centre, a sum of r geometric sequences, one per pole p_i of the design:
    g(d) = sum_i c+_i p_i^d   (d >= 1),        g(d) = sum_i c-_i p_i^-d   (d <= -1).
So all that the samples before a chunk [a, b) give each of its samples n is
sum_i c+_i p_i^(n-a) L_i(a), with L_i(a) = sum_{m<a} p_i^(a-m) x(m): r numbers per line, and as
many from the samples after it. Each chunk hands on its own part of these sums (its moments,
2r complex numbers per line); a scan over the chunks of each line of chunks adds them up, the
array's extension giving what lies beyond its ends (in closed form, summed over the extension's
periods, from the moments of the whole line); each chunk then filters itself with the zero
extension (the library, rfstudio.ndimage) and adds what the rest of the line gives it. This is the
block algorithm of Nehab et al. 2011 at the scale of a cluster (eqs. 24 and 27 complete each
block's prologue and epilogue from its neighbour's; algorithm 1's steps 1.2 and 1.3), written in
the partial fractions of the pair instead of its state, and the extension beyond the ends is that
of Nehab & Maximo 2016 (an infinite input extension summed in closed form, section 4).

The graph of one pass: a moments task per chunk, a scan task per line of chunks (the moments of
its chunks: 2r complex numbers per line and chunk, against 2 x 4 sigma samples that a halo
moves), and an output task per chunk. Passes along several axes follow each other; the constant
extension carries its value as rfstudio.ndimage does (cval times each earlier pass's gain at DC).
Memory: the output tasks compute their chunk again (recompute=True, the default), the products
take a slab of lines at a time, and the carries are kept in single precision for all but float64
arrays, so that a worker holds a few chunks and its share of the carries (docs/bench/dask-cpu.json).
"""

import numbers

import dask.array as da
from dask.base import tokenize
from dask.array.utils import meta_from_array
from dask.graph_manipulation import clone
import numpy as np

from . import _rfstudio
from . import ndimage as _ndimage

__all__ = ["gaussian_filter", "gaussian_filter1d", "gaussian_gradient_magnitude",
           "gaussian_laplace", "seam_bytes"]

# What one product of _along copies and makes at most: a chunk is never copied whole.
_SLAB_BYTES = 1 << 20


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0,
                    *, radius=None, axes=None, recompute=True):
    """rfstudio.ndimage.gaussian_filter of a dask array, as a dask array of the same chunks.

    output: None or a dtype (default the input's); truncate, radius: accepted, no effect (no
    truncation); the other arguments as scipy.ndimage.gaussian_filter takes them.
    recompute (default): a pass's output task reads its chunk again, computing the earlier
    passes of it again, so that each worker holds a few chunks and its share of the carries
    (about 4% of the array's bytes per pass in 1024-sample chunks, spread over the workers). False:
    dask holds each chunk from a pass's moments task to its output task, and a pass along a
    second axis cannot begin before the first has passed every chunk, so the cluster holds the
    whole array between them (spilling it to disk where the workers' memory limits say so); for
    an array that fits, that takes less time (docs/bench/dask-cpu.json has both)."""
    return _gaussian(input, sigma, order, output, mode, cval, axes, "partial", recompute)


def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0,
                      truncate=4.0, *, radius=None, recompute=True):
    """rfstudio.ndimage.gaussian_filter1d of a dask array: along one axis (recompute: as
    gaussian_filter takes it)."""
    x = _dask_array(input)
    if not isinstance(axis, numbers.Integral) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis: {axis} for an array of {x.ndim} dimensions")
    if not isinstance(sigma, numbers.Real):
        raise ValueError(f"sigma: {sigma} (one number along one axis)")
    return _gaussian(x, sigma, order, output, mode, cval, (axis,), "partial", recompute)


def gaussian_gradient_magnitude(input, sigma, output=None, mode="reflect", cval=0.0, *,
                                recompute=True, **kwargs):
    """rfstudio.ndimage.gaussian_gradient_magnitude of a dask array (recompute: as
    gaussian_filter takes it)."""
    return _gaussian(input, sigma, 0, output, mode, cval, _ndimage._axes_of(kwargs), "gradient",
                     recompute)


def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, *, recompute=True,
                     **kwargs):
    """rfstudio.ndimage.gaussian_laplace of a dask array (recompute: as gaussian_filter takes
    it)."""
    return _gaussian(input, sigma, 0, output, mode, cval, _ndimage._axes_of(kwargs), "laplacian",
                     recompute)


def seam_bytes(input, sigma, order=0, axes=None):
    """The bytes gaussian_filter(input, sigma, order, axes=axes) moves across the seams of the
    chunks: the moments each chunk hands to its line's scan and what the scan hands back, 2r
    complex numbers per line and chunk each way and pass, in single precision for all but float64
    (compare the 2 x 4 sigma samples per line and chunk of a halo)."""
    x = _dask_array(input)
    filtered = _ndimage._axis_passes(x.ndim, sigma, order, "reflect", 0.0, axes, "partial")
    design, _ = _ndimage._design(filtered, "partial")
    total = 0
    for axis, s, m, o in filtered:
        r = len(_Line(s, design, o).p)
        lines = x.size // x.shape[axis]
        carry = _carry_dtype(_work_dtype(x))
        total += 2 * (2 * r) * np.dtype(carry).itemsize * lines * len(x.chunks[axis])
    return total


def _work_dtype(x):
    """float64 in double (as rfstudio.ndimage on the CPU), every other type, and every type on
    CuPy chunks (the GPU filters in float32), in float32."""
    on_gpu = _module_of(x._meta) is not np
    return np.float64 if x.dtype == np.float64 and not on_gpu else np.float32


def _carry_dtype(work):
    """What the moments and the seams are kept and moved in: double for float64, single for
    float32, where their rounding (6e-8 relative) is that of the samples themselves. The scan
    adds them up in double either way."""
    return np.complex128 if work == np.float64 else np.complex64


def _dask_array(x):
    if not isinstance(x, da.Array):
        raise TypeError(f"input: a dask array (got {type(x).__name__}; rfstudio.ndimage filters "
                        "arrays in memory)")
    return x


def _gaussian(input, sigma, order, output, mode, cval, axes, measure, recompute):
    x = _dask_array(input)
    if np.dtype(x.dtype).kind not in "fiu":
        raise TypeError(f"input: dtype {x.dtype} is not a real number type")
    filtered = _ndimage._axis_passes(x.ndim, sigma, order, mode, cval, axes, measure)
    if not (output is None or isinstance(output, (type, str, np.dtype))):
        raise TypeError("output: a dtype or None (a dask array is not written in place)")
    out_dtype = x.dtype if output is None else np.dtype(output)
    if not filtered:
        return x.astype(out_dtype)
    design, least = _ndimage._design(filtered, measure)
    work = x.astype(_work_dtype(x))
    if not least:
        result = _passes(work, [(a, s, m, o) for a, s, m, o in filtered], design, float(cval),
                         recompute)
    else:
        # A measure from its partials: the derivative of `least` along each axis in turn.
        result = None
        for t in range(len(filtered)):
            term = _passes(work, [(a, s, m, least if i == t else 0)
                                  for i, (a, s, m, _) in enumerate(filtered)], design, float(cval),
                          recompute)
            term = term * term if least == 1 else term
            result = term if result is None else result + term
        if least == 1:
            result = da.sqrt(result)
    if np.dtype(out_dtype).kind in "iu":
        info = np.iinfo(out_dtype)
        return da.clip(da.rint(result), info.min, info.max).astype(out_dtype)
    return result.astype(out_dtype)


def _passes(x, passes, design, cval, recompute):
    """The passes (axis, sigma, scipy mode, derivative order), one after the other; under the
    constant extension each sees cval times the gains at DC of the passes before it."""
    scans = []
    for axis, sigma, mode, derivative in passes:
        line = _Line(sigma, design, derivative)
        _check_device_pass(x, axis, line)
        # The output tasks read a copy of the input's graph (all but the scans before: small,
        # held), which dask computes again rather than holding the chunks.
        again = clone(x, omit=scans) if recompute else x
        x, seams = _pass(x, again, axis, line, _ndimage.MODES[mode], cval)
        scans.append(seams)
        cval *= line.dc_gain
    return x


class _Line:
    """One pass's filter along a line: the recursive design of the library, as poles p_i and the
    weights c+_i, c-_i of its impulse response's two sides (the module's notes): the library's
    partial fractions of the pair (rf::pair_modes), then the derivative's difference."""

    def __init__(self, sigma, design, derivative):
        c = _rfstudio.line_filter(sigma, order=design, derivative=derivative)
        self.sigma, self.design, self.derivative = sigma, design, derivative
        self.dc_gain = c["dc_gain"]
        p, weight = np.array(c["poles"]), np.array(c["pair_weights"])
        # The difference that follows the smoothing, w_t at offsets t = -1, 0, 1:
        # g(d) = sum_t w_t h(d + t) with h(d) = sum_i c_i p_i^|d|.
        w = c["difference"]
        self.p = p
        self.c_plus = weight * sum(wt * p ** t for wt, t in zip(w, (-1, 0, 1)))
        self.c_minus = weight * sum(wt * p ** -t for wt, t in zip(w, (-1, 0, 1)))


def _check_device_pass(x, axis, line):
    """For CuPy chunks, the pass planned once on a tiny array now: what CUDA refuses is refused
    when the graph is built, not by every task when it runs."""
    xp = _module_of(x._meta)
    if xp is np:
        return
    try:
        _zero_extension(xp.ones((2,) * x.ndim, xp.float32), axis, line, xp)
    except ValueError as e:
        raise ValueError(f"sigma: {line.sigma} along axis {axis} on CuPy chunks: {e}") from None


def _pass(x, again, axis, line, ext, cval):
    """One pass along `axis` as three layers of tasks: moments (of x), scan, output (of `again`,
    x or a copy of its graph); the output and the scans."""
    r = len(line.p)
    sizes = x.chunks[axis]
    n = x.shape[axis]
    # Each chunk's moments: 2r complex numbers per line, stacked along the axis.
    moment_chunks = x.chunks[:axis] + ((2 * r,) * len(sizes),) + x.chunks[axis + 1:]
    # meta: numpy or CuPy as x's chunks (dask would otherwise call the functions on empty ones).
    carry = _carry_dtype(x.dtype)
    complex_meta = meta_from_array(x, x.ndim, carry)
    moments = x.map_blocks(_moments, axis=axis, p=line.p, dtype=carry,
                           meta=complex_meta, chunks=moment_chunks,
                           name=f"rf-moments-{tokenize(x, axis, line.p)}")
    # The scan of each line of chunks, with the line's first and last samples (clamp, reflect101).
    ends = da.concatenate([_take(x, axis, 0), _take(x, axis, n - 1)], axis=axis)
    ends = ends.rechunk({axis: -1})
    whole = moments.rechunk({axis: -1})
    seams = da.map_blocks(_scan, whole, ends, axis=axis, p=line.p, sizes=tuple(sizes), ext=ext,
                          cval=cval, dtype=carry, meta=complex_meta,
                          chunks=whole.chunks,
                          name=f"rf-seams-{tokenize(whole, ends, line.p, ext, cval)}")
    seams = seams.rechunk({axis: moment_chunks[axis]})
    out = da.map_blocks(_output, again, seams, axis=axis, line=line, dtype=x.dtype,
                        meta=meta_from_array(x, x.ndim, x.dtype), chunks=x.chunks,
                        name=f"rf-pass-{tokenize(again, seams, line.c_plus, line.c_minus)}")
    return out, seams


def _take(x, axis, i):
    index = [slice(None)] * x.ndim
    index[axis] = slice(i, i + 1)
    return x[tuple(index)].rechunk({axis: 1})


def _module_of(block):
    """numpy, or cupy for a CuPy chunk."""
    if type(block).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def _real(part, xp):
    """A real or imaginary part as a contiguous array of xp: BLAS takes it, a strided view falls
    back to a loop many times slower."""
    return xp.ascontiguousarray(xp.asarray(part))


def _along(weights, values, axis, xp, dtype=np.float64, into=None):
    """sum_m weights[k, m] values[..., m (at axis), ...] for each k, in `dtype`, k where the axis
    was: the chunk seen as (before, axis, after) and multiplied by BLAS a slab of lines at a time,
    so that its copy in `dtype` is never the whole chunk. into: an array of the result's shape to
    add it to (in its own dtype) instead of a new one."""
    shape = values.shape
    before, n = int(np.prod(shape[:axis])), shape[axis]
    after = int(np.prod(shape[axis + 1:]))
    w = _real(weights.astype(dtype), xp)
    k = w.shape[0]
    v = xp.ascontiguousarray(values).reshape(before, n, after)
    if into is None:
        into = xp.zeros(shape[:axis] + (k,) + shape[axis + 1:], dtype)
    out = into.reshape(before, k, after)
    # Lines per product: its copy of the values and its result about _SLAB_BYTES each at most.
    lines = max(1, _SLAB_BYTES // (max(n, k) * np.dtype(dtype).itemsize))
    if after == 1:
        for i in range(0, before, lines):
            out[i:i + lines, :, 0] += v[i:i + lines, :, 0].astype(dtype) @ w.T
    else:
        for i in range(before):
            for j in range(0, after, lines):
                out[i, :, j:j + lines] += w @ v[i, :, j:j + lines].astype(dtype)
    return into


def _moments(block, axis, p):
    """mu_i = sum_m p_i^(b-m) x(m) and nu_i = sum_m p_i^(m-a+1) x(m) over the chunk [a, b) of
    each line: what its samples give the samples after it and before it (2r along the axis)."""
    xp = _module_of(block)
    m = np.arange(block.shape[axis])
    weights = np.concatenate([p[:, None] ** (len(m) - m)[None, :],     # to the chunk's end
                              p[:, None] ** (m + 1)[None, :]])          # to its start
    # Real and imaginary parts in one product: the chunk is read (and made float64, a slab at a
    # time) once.
    parts = _along(np.concatenate([weights.real, weights.imag]), block, axis, xp)
    real, imaginary = xp.split(parts, 2, axis=axis)
    return (real + 1j * imaginary).astype(_carry_dtype(block.dtype))


def _scan(moments, ends, axis, p, sizes, ext, cval):
    """For every chunk of the lines, L_i(a) (the samples before it) and R_i(b) (after it), the
    extension beyond the array's ends included: 2r numbers per line and chunk."""
    xp = _module_of(moments)
    r = len(p)
    lines = xp.moveaxis(moments, axis, 0)
    rest = lines.shape[1:]
    lines = lines.reshape(len(sizes), 2 * r, -1).astype(xp.complex128)
    ends = xp.moveaxis(ends, axis, 0).reshape(2, 1, -1).astype(xp.float64)
    first, last = ends[0], ends[1]
    pc = xp.asarray(p)[:, None]
    n = int(sum(sizes))
    starts = np.cumsum((0,) + sizes[:-1])
    # The whole line's moments: A = sum_m p^(m+1) x(m), B = sum_m p^(n-m) x(m).
    whole_a = sum(pc ** int(a) * lines[k, r:] for k, a in enumerate(starts))
    whole_b = sum(pc ** int(n - a - s) * lines[k, :r] for k, (a, s) in enumerate(zip(starts, sizes)))
    before, after = _beyond(ext, pc, n, whole_a, whole_b, first, last, cval, xp)
    out = xp.empty_like(lines)
    carry = before
    for k, s in enumerate(sizes):       # L(a_k); L(b_k) = p^s L(a_k) + mu_k
        out[k, :r] = carry
        carry = pc ** s * carry + lines[k, :r]
    carry = after
    for k in range(len(sizes) - 1, -1, -1):   # R(b_k); R(a_k) = p^s R(b_k) + nu_k
        out[k, r:] = carry
        carry = pc ** sizes[k] * carry + lines[k, r:]
    out = out.reshape((len(sizes) * 2 * r,) + rest).astype(moments.dtype)
    return xp.moveaxis(out, 0, axis)


def _beyond(ext, p, n, whole_a, whole_b, first, last, cval, xp):
    """L(0) = sum_{m<0} p^-m x(m) and R(n) = sum_{m>=n} p^(m-n+1) x(m) of the extended line, in
    closed form: each extension repeats the line, or a constant, over infinitely many periods."""
    def geometric(v):
        return v * p / (1 - p)

    zero = xp.zeros_like(whole_a)
    if ext == "zero":
        return zero, zero
    if ext == "constant":
        return zero + geometric(cval), zero + geometric(cval)
    if ext == "clamp" or (ext == "reflect101" and n == 1):
        return geometric(first) + zero, geometric(last) + zero
    if ext == "repeat":              # period n: ... x(0..n-1) | x(0..n-1) | x(0..n-1) ...
        period = 1 - p ** n
        return whole_b / period, whole_a / period
    if ext == "mirror":              # period 2n: c b a | a b c | c b a
        period = 1 - p ** (2 * n)
        return (whole_a + p ** n * whole_b) / period, (whole_b + p ** n * whole_a) / period
    if ext == "reflect101":          # period 2n - 2: c b | a b c | b a
        period = 1 - p ** (2 * n - 2)
        left = whole_a / p - first + p ** (n - 2) * (whole_b - p * last)
        right = whole_b / p - last + p ** (n - 2) * (whole_a - p * first)
        return left / period, right / period
    raise ValueError(f"mode: extension {ext} has no closed form here")


def _output(block, seams, axis, line):
    """The chunk filtered with the zero extension by the library, plus what the samples before
    and after it give: sum_i c+_i p_i^(n-a) L_i(a) + c-_i p_i^(b-1-n) R_i(b)."""
    xp = _module_of(block)
    zero = _zero_extension(block, axis, line, xp)
    k = np.arange(block.shape[axis])
    weights = np.concatenate([line.c_plus[None, :] * line.p[None, :] ** k[:, None],
                              line.c_minus[None, :] * line.p[None, :] ** (len(k) - 1 - k)[:, None]],
                             axis=1)                                   # samples x 2r
    # The real part of the complex product, as one real product, in the chunk's precision (the
    # moments and the scan are in double).
    parts = xp.concatenate([seams.real, seams.imag], axis=axis)
    return _along(np.concatenate([weights.real, -weights.imag], axis=1), parts, axis, xp,
                  block.dtype, into=zero)


def _zero_extension(block, axis, line, xp):
    """The library's pass along `axis` of the chunk alone, continued by zeros."""
    block = xp.ascontiguousarray(block)
    out = xp.empty_like(block)
    passes = [(axis, line.sigma, line.derivative, "zero")]
    if xp is np:
        _rfstudio.filter_array(block, out, passes, order=line.design, backend="cpu")
    else:
        if block.dtype != xp.float32:
            raise TypeError(f"input: CuPy chunks are filtered in float32 (got {block.dtype})")
        _rfstudio.filter_array_device(block.data.ptr, out.data.ptr, list(block.shape), passes,
                                      order=line.design,
                                      stream=xp.cuda.get_current_stream().ptr)
    return out
