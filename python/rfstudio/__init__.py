"""Exact recursive image filtering on the CPU and CUDA (Recursive Filter Studio).

    import numpy as np
    import rfstudio

    image = np.random.default_rng(1).random((480, 640, 3), dtype=np.float32)
    blurred = rfstudio.filter(image, "gaussian", sigma=8, order=3, ext="mirror")
    rfstudio.coeffs("gaussian", sigma=4, order=3)      # {'b0': ..., 'a': [...], 'causal_only': False}
    truth = rfstudio.truth(image, "gaussian", sigma=8)  # the double-precision ground truth

    engine = rfstudio.Engine("edge-aware", sigma=20, sigma_r=0.3)   # plan once ...
    for frame in frames:
        out = engine.run(frame)                                     # ... run per frame

The names each parameter takes are the tuples kinds, extensions, algorithms, gaussian_methods
and backends, read from the library's filter table (rfcli's --help lists the same).
rfstudio.ndimage.gaussian_filter takes scipy.ndimage.gaussian_filter's arguments instead;
rfstudio.dask (import it: it needs dask) the same for chunked dask arrays larger than memory.

Arrays are H x W or H x W x C (C = 1 to 4), float32, float16, uint8 or uint16 (the integers
filtered on [0, 1]); results keep the shape and dtype. Arrays in GPU memory (CuPy, PyTorch,
Numba, JAX: __cuda_array_interface__ or __dlpack__) are filtered where they are by the CUDA
backend. Mistakes raise ValueError with the message rfcli prints for the same option.
"""

from ._rfstudio import (
    BackendUnavailable,
    DeviceArray,
    Engine,
    __version__,
    algorithms,
    backends,
    coeffs,
    cuda_available,
    extensions,
    filter,
    gaussian_methods,
    kinds,
    truth,
)
from . import ndimage

__all__ = [
    "BackendUnavailable",
    "DeviceArray",
    "Engine",
    "algorithms",
    "backends",
    "coeffs",
    "cuda_available",
    "extensions",
    "filter",
    "gaussian_methods",
    "kinds",
    "ndimage",
    "truth",
]
