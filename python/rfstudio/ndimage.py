"""scipy.ndimage's Gaussian filter, on the exact recursive filter.

    from rfstudio import ndimage
    blurred = ndimage.gaussian_filter(image, sigma=8, mode="mirror")

gaussian_filter takes scipy.ndimage.gaussian_filter's arguments and gives its result to within
the recursive design's error, in the time a recursive filter takes whatever sigma: code written
for scipy (or cupyx.scipy.ndimage, dask-image) changes its import and nothing else.

What differs, and why:
- There is no truncation. scipy convolves with the sampled Gaussian cut at `truncate` sigmas (or
  `radius` samples); the recursive filter's impulse response is infinite and every extension is
  exact at any sigma, so `truncate` and `radius` are accepted and do nothing: the result is
  scipy's at a truncation wide enough not to matter (truncate=12 in the tests).
- The Gaussian is the recursive design of the highest order whose sigma range holds the sigmas
  (order 5 up to sigma 200, 4 up to 1000, 3 beyond, 1 below 0.5): relative RMS error about 1e-3
  against the sampled Gaussian (docs/design-errors.md has each order's).
- float64 arrays are filtered in double throughout on the CPU, derivatives and measures too
  (within 1e-12 of the double reference of the same design); every other dtype in float32.
- Any number of dimensions and axes: each axis with a sigma above zero (after `axes`) is filtered
  on its own (rf::ArrayFilter: two adjacent image axes together, as an image), the others are
  left alone, as scipy does with sigma 0.
- uint8, uint16, float16, float32 and float64 arrays are filtered as they are (integers as their
  values, rounded back); other integer types through float64.
- Derivatives (order 1 or 2 per axis, gaussian_gradient_magnitude, gaussian_laplace) are
  differences of the recursive Gaussian, exact at the border for every mode, smoothed with
  sigma^2 - 1/3 (first) or - 1/6 (second) so that smoothing and difference together match the
  sampled Gaussian derivative (docs/design-errors.md). A derivative weighs the recursive design's
  error towards high frequencies: on white noise 7e-3 relative RMS from scipy's at sigma 2 for a
  first derivative, 2.6e-2 for a second, 5e-3 and 1.2e-2 at sigma 5. Order 3 and above are
  refused.
- mode='constant' with a cval other than 0: the derivative is that of the image continued by cval
  in every direction. scipy pads each axis's pass with cval, also beside a derivative (whose
  continuation is 0), so the two differ near the border unless the derivative is along the last
  axis.
- A mode per axis, as scipy takes it.
- A CuPy array or a PyTorch CUDA tensor is filtered on its GPU, without leaving it, and comes
  back as the same library's array (float32 arithmetic there too; `output` a dtype, or an array
  of the same library).
"""

import numbers

import numpy as np

from . import _rfstudio

# scipy's mode names and the extensions they are (rfstudio.extensions): 'reflect' repeats the
# edge sample (d c b a | a b c d | d c b a: our mirror), 'mirror' does not (d c b | a b c d | c b a:
# reflect101). The grid- names mean the same for filters.
MODES = {
    "reflect": "mirror",
    "grid-mirror": "mirror",
    "mirror": "reflect101",
    "nearest": "clamp",
    "wrap": "repeat",
    "grid-wrap": "repeat",
    "constant": "constant",
    "grid-constant": "constant",
}

__all__ = ["gaussian_filter", "gaussian_filter1d", "gaussian_gradient_magnitude",
           "gaussian_laplace", "MODES"]


def _per_axis(value, count, name):
    if isinstance(value, str) or not hasattr(value, "__len__"):
        return [value] * count
    values = list(value)
    if len(values) != count:
        raise ValueError(f"{name}: {len(values)} values for {count} axes")
    return values


class _Numpy:
    """The array operations the filter needs, on host arrays (numpy) ..."""

    dtype_of = staticmethod(np.dtype)

    def __init__(self):
        self.float32 = np.float32

    def contiguous(self, a):
        return np.ascontiguousarray(a)

    def astype(self, a, dtype):
        return a.astype(dtype)

    def round_into(self, a, dtype):
        info = np.iinfo(dtype)
        return np.clip(np.rint(a), info.min, info.max).astype(dtype)


class _Cupy(_Numpy):
    """... on CuPy arrays (filtered on the current device and stream) ..."""

    def __init__(self):
        import cupy

        self.xp = cupy
        self.float32 = cupy.float32
        self.dtype_of = np.dtype

    def contiguous(self, a):
        return self.xp.ascontiguousarray(a)

    def empty(self, shape, dtype, like):
        return self.xp.empty(shape, dtype)

    def address(self, a):
        return a.data.ptr

    def stream(self):
        return self.xp.cuda.get_current_stream().ptr

    def sqrt(self, a):
        return self.xp.sqrt(a)

    def round_into(self, a, dtype):
        info = np.iinfo(dtype)
        return self.xp.clip(self.xp.rint(a), info.min, info.max).astype(dtype)


class _Torch(_Numpy):
    """... and on PyTorch tensors (on their device's current stream)."""

    def __init__(self):
        import torch

        self.torch = torch
        self.float32 = torch.float32

    def dtype_of(self, dtype):
        return dtype

    def contiguous(self, a):
        return a.contiguous()

    def astype(self, a, dtype):
        return a.to(dtype)

    def empty(self, shape, dtype, like):
        return self.torch.empty(shape, dtype=dtype, device=like.device)

    def address(self, a):
        return a.data_ptr()

    def stream(self):
        return self.torch.cuda.current_stream().cuda_stream

    def sqrt(self, a):
        return self.torch.sqrt(a)

    def round_into(self, a, dtype):
        info = self.torch.iinfo(dtype)
        return self.torch.clamp(self.torch.round(a), info.min, info.max).to(dtype)


def _library_of(x):
    """The operations for x's library, and whether x lives in GPU memory."""
    if not hasattr(x, "__cuda_array_interface__"):
        return _Numpy(), False
    name = type(x).__module__.split(".")[0]
    if name == "cupy":
        return _Cupy(), True
    if name == "torch":
        return _Torch(), True
    raise TypeError(f"input: a GPU array of {name}; rfstudio.ndimage takes CuPy arrays and PyTorch "
                    "tensors (other libraries: rfstudio.filter)")


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0,
                    *, radius=None, axes=None):
    """scipy.ndimage.gaussian_filter on the exact recursive Gaussian (see the module's notes).

    input: a numpy array (or anything numpy reads), a CuPy array or a PyTorch CUDA tensor, of
    any real dtype; sigma: one or one per axis of `axes`; order: 0, 1 or 2, one or one per axis
    (a derivative of the Gaussian along that axis); output: an array or dtype, default the
    input's; mode: scipy's names (reflect, mirror, nearest, wrap, constant and the grid- ones),
    one or one per axis (the same); cval: the value outside under 'constant', in the array's
    units; truncate, radius: accepted, no effect (no truncation); axes: the axes to filter.
    """
    return _gaussian(input, sigma, order, output, mode, cval, axes, "partial")


def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0,
                      truncate=4.0, *, radius=None):
    """scipy.ndimage.gaussian_filter1d: the Gaussian (or its derivative of `order` 0, 1 or 2)
    along one axis, exact at its border; truncate and radius: accepted, no effect."""
    ndim = np.ndim(input) if not hasattr(input, "ndim") else input.ndim
    if not isinstance(axis, numbers.Integral) or not -ndim <= axis < ndim:
        raise ValueError(f"axis: {axis} for an array of {ndim} dimensions")
    if not isinstance(sigma, numbers.Real):
        raise ValueError(f"sigma: {sigma} (one number along one axis)")
    return _gaussian(input, sigma, order, output, mode, cval, (axis,), "partial")


def gaussian_gradient_magnitude(input, sigma, output=None, mode="reflect", cval=0.0, **kwargs):
    """scipy.ndimage.gaussian_gradient_magnitude: sqrt of the sum over the filtered axes of
    the squared first Gaussian derivatives, each exact at the border. kwargs: truncate, radius
    (no effect) and axes, as gaussian_filter takes them."""
    return _gaussian(input, sigma, 0, output, mode, cval, _axes_of(kwargs), "gradient")


def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, **kwargs):
    """scipy.ndimage.gaussian_laplace: the sum over the filtered axes of the second Gaussian
    derivatives, each exact at the border. kwargs as gaussian_gradient_magnitude's."""
    return _gaussian(input, sigma, 0, output, mode, cval, _axes_of(kwargs), "laplacian")


def _axes_of(kwargs):
    unknown = set(kwargs) - {"truncate", "radius", "axes"}
    if unknown:
        raise TypeError(f"unexpected keyword arguments: {', '.join(sorted(unknown))}")
    return kwargs.get("axes")


def _gaussian(input, sigma, order, output, mode, cval, axes, measure):
    lib, on_gpu = _library_of(input)
    x = input if on_gpu else np.asarray(input)
    kind = np.dtype(str(x.dtype).replace("torch.", "")).kind
    if kind not in "fiu":
        raise TypeError(f"input: dtype {x.dtype} is not a real number type")
    filtered = _axis_passes(x.ndim, sigma, order, mode, cval, axes, measure)
    if output is None or isinstance(output, (type, str, np.dtype)) or not hasattr(output, "shape"):
        out_dtype = x.dtype if output is None else lib.dtype_of(output)
        out = None
    else:
        out = output
        if type(out) is not type(x) or tuple(out.shape) != tuple(x.shape):
            raise ValueError(f"output: an array of shape {tuple(x.shape)} and of the input's "
                             f"library (got {type(out).__name__} {tuple(out.shape)})")
        out_dtype = out.dtype
    if not filtered:
        result = lib.astype(x, out_dtype) if on_gpu else x.astype(out_dtype, copy=True)
    else:
        result = _filter_axes(lib, on_gpu, x, filtered, float(cval), out_dtype, measure)
    if out is None:
        return result
    out[...] = result
    return out


def _axis_passes(ndim, sigma, order, mode, cval, axes, measure):
    """The checked arguments as (axis, sigma, mode, order) for each axis to filter: those of
    `axes` whose sigma is above zero (an empty list for a partial filter that leaves all alone)."""
    if ndim == 0:
        raise ValueError("input: a 0-d array has no axis to filter")
    all_axes = tuple(range(ndim)) if axes is None else tuple(
        a + ndim if a < 0 else a for a in np.atleast_1d(axes).tolist())
    if any(a < 0 or a >= ndim for a in all_axes) or len(set(all_axes)) != len(all_axes):
        raise ValueError(f"axes: {axes} for an array of {ndim} dimensions")
    sigmas = [float(s) for s in _per_axis(sigma, len(all_axes), "sigma")]
    orders = _per_axis(order, len(all_axes), "order")
    modes = _per_axis(mode, len(all_axes), "mode")
    for s in sigmas:
        if not np.isfinite(s) or s < 0:
            raise ValueError(f"sigma: {s} (must be a finite number >= 0)")
    for o in orders:
        if not isinstance(o, numbers.Integral) or o < 0:
            raise ValueError(f"order: {o} (must be an integer >= 0)")
        if o > 2:
            raise ValueError(f"order: {o}: the recursive Gaussian derivatives go to order 2")
    for m in modes:
        if m not in MODES:
            raise ValueError(f"mode: unknown mode {m!r} ({', '.join(MODES)})")
    if not np.isfinite(cval):
        raise ValueError(f"cval: {cval} (must be a finite number)")
    # scipy filters only the axes with a sigma above zero.
    filtered = [(a, s, m, o) for a, s, m, o in zip(all_axes, sigmas, modes, orders) if s > 1e-15]
    if any(o != 0 for a, s, m, o in zip(all_axes, sigmas, modes, orders) if s <= 1e-15):
        raise ValueError(f"order: {orders}: a derivative along an axis of sigma 0")
    if not filtered and measure != "partial":
        raise ValueError(f"sigma: {sigmas}: the {measure} needs an axis with a sigma above 0")
    return filtered


def _design(filtered, measure):
    """The highest recursive order whose design takes every pass of `filtered`, and the
    derivative order each axis's term of a measure takes (1 for the gradient magnitude, 2 for the
    Laplacian, None for a partial)."""
    # A derivative smooths with less than sigma^2 (the difference that follows smooths the rest):
    # the design's order is chosen for that (the library's line_filter checks each line as it runs).
    least = {"gradient": 1, "laplacian": 2}.get(measure)
    for order in (5, 4, 3, 2, 1):
        try:
            for a, s, m, o in filtered:
                _rfstudio.line_filter(s, order=order, derivative=least or o)
            return order, least
        except ValueError as e:
            error = f"along axis {a}: {e}"
    raise ValueError(error)


# The dtypes the library filters in and out itself (integers as their values).
_NATIVE = {np.dtype(t) for t in (np.uint8, np.uint16, np.float16, np.float32, np.float64)}


def _filter_axes(lib, on_gpu, x, filtered, cval, out_dtype, measure):
    """The axes of `filtered` (axis, sigma, mode, order), one pass each (rf::ArrayFilter)."""
    design, least = _design(filtered, measure)
    passes = [(a, s, 0 if least else o, MODES[m]) for a, s, m, o in filtered]
    integer = np.dtype(str(out_dtype).replace("torch.", "")).kind in "iu"
    if not on_gpu:
        work = np.ascontiguousarray(x if x.dtype in _NATIVE else x.astype(np.float64))
        native_out = np.dtype(out_dtype) in _NATIVE
        result = np.empty(work.shape, out_dtype if native_out else np.float64)
        _rfstudio.filter_array(work, result, passes, order=design, cval=cval,
                               measure=measure if least else "none", backend="cpu")
        if native_out:
            return result
        return lib.round_into(result, out_dtype) if integer else result.astype(out_dtype)
    # On the GPU: float32, a measure made of its partials here.
    work = lib.contiguous(lib.astype(x, lib.float32))
    terms = [[o for _, _, o, _ in passes]] if not least else [
        [least if i == t else 0 for i in range(len(passes))] for t in range(len(passes))]
    total = None
    for orders in terms:
        term = lib.empty(tuple(work.shape), lib.float32, like=work)
        _rfstudio.filter_array_device(
            lib.address(work), lib.address(term), list(work.shape),
            [(a, s, o, e) for (a, s, _, e), o in zip(passes, orders)], order=design, cval=cval,
            stream=lib.stream())
        if least == 1:
            term = term * term
        total = term if total is None else total + term
    if least == 1:
        total = lib.sqrt(total)
    return lib.round_into(total, out_dtype) if integer else lib.astype(total, out_dtype)
