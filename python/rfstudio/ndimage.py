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
  One axis, three and derivatives (order > 0) are refused with a ValueError naming the argument.
- One mode for both axes (a mode per axis is refused unless the two are the same).
- numpy arrays only here; arrays in GPU memory go through rfstudio.filter.
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

__all__ = ["gaussian_filter", "MODES"]


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


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0,
                    *, radius=None, axes=None):
    """scipy.ndimage.gaussian_filter on the exact recursive Gaussian (see the module's notes).

    input: a numpy array (or anything numpy reads) of any real dtype; sigma: one or one per axis
    of `axes`; order: 0 (derivatives are refused); output: an array or dtype, default the
    input's; mode: scipy's names (reflect, mirror, nearest, wrap, constant and the grid- ones),
    one or one per axis (the same); cval: the value outside under 'constant', in the array's
    units; truncate, radius: accepted, no effect (no truncation); axes: the axes to filter.
    """
    if hasattr(input, "__cuda_array_interface__"):
        raise TypeError("input: rfstudio.ndimage filters numpy arrays; arrays in GPU memory go "
                        "through rfstudio.filter")
    x = np.asarray(input)
    if x.dtype.kind not in "fiub" or x.dtype.kind == "b":
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
        if o != 0:
            raise ValueError(f"order: {o}: Gaussian derivatives are not offered yet (order 0)")
    for m in modes:
        if m not in MODES:
            raise ValueError(f"mode: unknown mode {m!r} ({', '.join(MODES)})")
    if not np.isfinite(cval):
        raise ValueError(f"cval: {cval} (must be a finite number)")
    # scipy filters only the axes with a sigma above zero.
    filtered = [(a, s, m) for a, s, m in zip(all_axes, sigmas, modes) if s > 1e-15]
    if output is None or isinstance(output, (type, np.dtype, str)):
        out_dtype = x.dtype if output is None else np.dtype(output)
        out = None
    else:
        out = output
        if not isinstance(out, np.ndarray) or out.shape != x.shape:
            raise ValueError(f"output: an array of shape {x.shape} (got "
                             f"{getattr(out, 'shape', type(out).__name__)})")
        out_dtype = out.dtype
    if not filtered:
        result = x.astype(out_dtype, copy=True)
    else:
        if len(filtered) != 2:
            raise ValueError(f"sigma: {len(filtered)} axes to filter; rfstudio.ndimage filters two "
                             "at a time (give the others sigma 0, or name two in axes)")
        if len({MODES[m] for _, _, m in filtered}) != 1:
            raise ValueError(f"mode: {[m for _, _, m in filtered]}: one mode for both axes")
        result = _filter_two_axes(x, filtered, float(cval), out_dtype)
    if out is None:
        return result
    out[...] = result
    return out


def _filter_two_axes(x, filtered, cval, out_dtype):
    (ay, sy, mode), (ax, sx, _) = sorted(filtered)
    ext = MODES[mode]
    design = _order_for((sy, sx))
    # The two axes first, every other axis one channel of its own.
    moved = np.moveaxis(x, (ay, ax), (0, 1))
    h, w = moved.shape[:2]
    planes = np.ascontiguousarray(moved.reshape(h, w, -1))
    if x.dtype == np.uint8 and np.dtype(out_dtype) == np.uint8:
        work, scale = planes, 255.0  # filtered on [0, 1] and rounded back, cval on that scale
    else:
        work, scale = planes.astype(np.float32), 1.0
    kwargs = dict(sigma=(sy, sx), order=design, ext=ext)
    if ext == "constant":
        kwargs["cval"] = cval / scale
    result = np.empty(work.shape, work.dtype)
    for c in range(work.shape[2]):
        result[:, :, c] = _rfstudio.filter(np.ascontiguousarray(work[:, :, c]), "gaussian",
                                           **kwargs)
    result = np.moveaxis(result.reshape(moved.shape), (0, 1), (ay, ax))
    if np.dtype(out_dtype).kind in "iu" and result.dtype != out_dtype:
        info = np.iinfo(out_dtype)
        result = np.clip(np.rint(result), info.min, info.max)
    return result.astype(out_dtype, copy=False)
