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
- The arithmetic is float32 (float64 arrays are filtered in float32 and returned as float64).
- Two axes at a time: the axes with a sigma above zero (after `axes`) must be two, the others
  are filtered as independent channels (an H x W x 3 image: sigma=(s, s, 0) or axes=(0, 1)).
  One axis and three are refused with a ValueError naming the argument.
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
- One mode for both axes (a mode per axis is refused unless the two are the same).
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

__all__ = ["gaussian_filter", "gaussian_gradient_magnitude", "gaussian_laplace", "MODES"]


def _per_axis(value, count, name):
    if isinstance(value, str) or not hasattr(value, "__len__"):
        return [value] * count
    values = list(value)
    if len(values) != count:
        raise ValueError(f"{name}: {len(values)} values for {count} axes")
    return values


def _order_for(sigmas):
    """The highest recursive order whose design takes every sigma."""
    for order in (5, 4, 3, 2, 1):
        try:
            for s in sigmas:
                _rfstudio.coeffs("gaussian", sigma=s, order=order)
            return order
        except ValueError:
            continue
    raise ValueError(f"sigma: {sigmas} is outside every order's range")


class _Numpy:
    """The array operations the filter needs, on host arrays (numpy) ..."""

    dtype_of = staticmethod(np.dtype)

    def __init__(self):
        self.float32 = np.float32

    def moveaxis(self, a, src, dst):
        return np.moveaxis(a, src, dst)

    def contiguous(self, a):
        return np.ascontiguousarray(a)

    def astype(self, a, dtype):
        return a.astype(dtype)

    def empty(self, shape, dtype, like):
        return np.empty(shape, dtype)

    def wrap(self, result):
        return result

    def round_into(self, a, dtype):
        info = np.iinfo(dtype)
        return np.clip(np.rint(a), info.min, info.max).astype(dtype)


class _Cupy(_Numpy):
    """... on CuPy arrays ..."""

    def __init__(self):
        import cupy

        self.xp = cupy
        self.float32 = cupy.float32
        self.dtype_of = np.dtype

    def moveaxis(self, a, src, dst):
        return self.xp.moveaxis(a, src, dst)

    def contiguous(self, a):
        return self.xp.ascontiguousarray(a)

    def empty(self, shape, dtype, like):
        return self.xp.empty(shape, dtype)

    def wrap(self, result):
        return self.xp.asarray(result)

    def round_into(self, a, dtype):
        info = np.iinfo(dtype)
        return self.xp.clip(self.xp.rint(a), info.min, info.max).astype(dtype)


class _Torch(_Numpy):
    """... and on PyTorch tensors."""

    def __init__(self):
        import torch

        self.torch = torch
        self.float32 = torch.float32

    def dtype_of(self, dtype):
        return dtype

    def moveaxis(self, a, src, dst):
        return self.torch.movedim(a, src, dst)

    def contiguous(self, a):
        return a.contiguous()

    def astype(self, a, dtype):
        return a.to(dtype)

    def empty(self, shape, dtype, like):
        return self.torch.empty(shape, dtype=dtype, device=like.device)

    def wrap(self, result):
        return self.torch.from_dlpack(result)

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


def gaussian_gradient_magnitude(input, sigma, output=None, mode="reflect", cval=0.0, **kwargs):
    """scipy.ndimage.gaussian_gradient_magnitude: sqrt of the sum over the two filtered axes of
    the squared first Gaussian derivatives, each exact at the border. kwargs: truncate, radius
    (no effect) and axes, as gaussian_filter takes them."""
    return _gaussian(input, sigma, 0, output, mode, cval, _axes_of(kwargs), "gradient")


def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, **kwargs):
    """scipy.ndimage.gaussian_laplace: the sum over the two filtered axes of the second Gaussian
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
    if x.ndim == 0:
        raise ValueError("input: a 0-d array has no axis to filter")
    all_axes = tuple(range(x.ndim)) if axes is None else tuple(
        a + x.ndim if a < 0 else a for a in np.atleast_1d(axes).tolist())
    if any(a < 0 or a >= x.ndim for a in all_axes) or len(set(all_axes)) != len(all_axes):
        raise ValueError(f"axes: {axes} for an array of {x.ndim} dimensions")
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
    if output is None or isinstance(output, (type, str, np.dtype)) or not hasattr(output, "shape"):
        out_dtype = x.dtype if output is None else lib.dtype_of(output)
        out = None
    else:
        out = output
        if type(out) is not type(x) or tuple(out.shape) != tuple(x.shape):
            raise ValueError(f"output: an array of shape {tuple(x.shape)} and of the input's "
                             f"library (got {type(out).__name__} {tuple(out.shape)})")
        out_dtype = out.dtype
    if not filtered and measure == "partial":
        result = lib.astype(x, out_dtype) if on_gpu else x.astype(out_dtype, copy=True)
    else:
        if len(filtered) != 2:
            raise ValueError(f"sigma: {len(filtered)} axes to filter; rfstudio.ndimage filters two "
                             "at a time (give the others sigma 0, or name two in axes)")
        if len({MODES[m] for _, _, m, _ in filtered}) != 1:
            raise ValueError(f"mode: {[m for _, _, m, _ in filtered]}: one mode for both axes")
        result = _filter_two_axes(lib, on_gpu, x, filtered, float(cval), out_dtype, measure)
    if out is None:
        return result
    out[...] = result
    return out


def _filter_two_axes(lib, on_gpu, x, filtered, cval, out_dtype, measure):
    (ay, sy, mode, oy), (ax, sx, _, ox) = sorted(filtered)
    ext = MODES[mode]
    derivative = {"gradient": "gradient", "laplacian": "laplacian"}.get(measure, f"{ox},{oy}")
    # The measures and derivatives smooth with less than sigma^2 (the difference that follows
    # smooths the rest): the design's order is chosen for that.
    least = {"gradient": 1, "laplacian": 2}.get(measure, None)
    shrink = [1 / 3 if o == 1 else 1 / 6 if o == 2 else 0.0 for o in (least or oy, least or ox)]
    smoothing = [s * s - v for s, v in zip((sy, sx), shrink)]
    if min(smoothing) <= 0:
        raise ValueError(f"sigma: {(sy, sx)} is too small for the derivative: it smooths with "
                         "sqrt(sigma^2 - 1/3) along a first derivative, sqrt(sigma^2 - 1/6) along "
                         "a second")
    design = _order_for([np.sqrt(v) for v in smoothing])
    # The two axes first, every other axis one channel of its own, filtered as one plane each.
    moved = lib.moveaxis(x, (ay, ax), (0, 1))
    h, w = moved.shape[:2]
    planes = lib.contiguous(moved.reshape(h, w, -1))
    if (not on_gpu and x.dtype == np.uint8 and np.dtype(out_dtype) == np.uint8
            and derivative == "0,0"):
        work, scale = planes, 255.0  # filtered on [0, 1] and rounded back, cval on that scale
    else:
        work, scale = lib.astype(planes, lib.float32), 1.0
    kwargs = dict(sigma=(sy, sx), order=design, ext=ext)
    if derivative != "0,0":
        kwargs["derivative"] = derivative
    if ext == "constant":
        kwargs["cval"] = cval / scale
    result = lib.empty(tuple(work.shape), work.dtype, like=work)
    for c in range(work.shape[2]):
        plane = lib.contiguous(work[:, :, c])
        result[:, :, c] = lib.wrap(_rfstudio.filter(plane, "gaussian", **kwargs))
    result = lib.moveaxis(result.reshape(tuple(moved.shape)), (0, 1), (ay, ax))
    integer = np.dtype(str(out_dtype).replace("torch.", "")).kind in "iu"
    if integer and result.dtype != out_dtype:
        return lib.round_into(result, out_dtype)
    return lib.astype(result, out_dtype)
