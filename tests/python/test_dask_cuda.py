"""rfstudio.dask on CuPy chunks: each chunk filtered on its GPU (the library's CUDA backend, on
CuPy's current stream), the moments and carries in CuPy; the result must be the CPU's in-memory
filter of the same array to float rounding. Each chunk's pass is along one axis, where CUDA runs
RT, in the modal form for the widest Gaussians. Exits 77 (CTest: skipped) without dask, CuPy or
a CUDA device."""
import sys
import unittest

import numpy as np

try:
    import cupy as cp
    import dask.array as da

    import rfstudio

    if not rfstudio.cuda_available():
        raise ImportError("no CUDA device")
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

import rfstudio.dask as rd
from rfstudio import ndimage


class CupyChunks(unittest.TestCase):
    def test_every_mode_and_derivative_as_the_cpu_in_memory(self):
        for shape, chunks in [((130, 97), (32, 20)), ((24, 40, 33), (8, 16, 11))]:
            x = np.random.default_rng(len(shape)).random(shape, dtype=np.float32)
            dx = da.from_array(cp.asarray(x), chunks=chunks, asarray=False)
            for mode in ("reflect", "mirror", "nearest", "wrap", "constant"):
                for sigma, order in ((3.0, 0), (20.0, 0), (5.0, 1), (12.0, 2)):
                    with self.subTest(shape=shape, mode=mode, sigma=sigma, order=order):
                        y = rd.gaussian_filter(dx, sigma, order=order, mode=mode, cval=0.25)
                        got = y.compute(scheduler="sync")
                        self.assertIsInstance(got, cp.ndarray)
                        want = ndimage.gaussian_filter(x, sigma, order=order, mode=mode,
                                                       cval=0.25)
                        self.assertLess(float(np.abs(cp.asnumpy(got) - want).max()), 2e-6)

    def test_sigma_far_wider_than_the_chunks(self):
        # Order 5 at sigma 200 along one axis: beyond the direct form's window limit, RT runs the
        # modal form on the GPU; the chunks are 64 samples wide.
        x = np.random.default_rng(6).random((300, 260), dtype=np.float32)
        dx = da.from_array(cp.asarray(x), chunks=64, asarray=False)
        for mode in ("reflect", "mirror", "nearest", "wrap", "constant"):
            with self.subTest(mode=mode):
                got = rd.gaussian_filter(dx, (200.0, 120.0), mode=mode, cval=0.25)
                want = ndimage.gaussian_filter(x, (200.0, 120.0), mode=mode, cval=0.25)
                got = cp.asnumpy(got.compute(scheduler="sync"))
                self.assertLess(float(np.abs(got - want).max()), 2e-5)

    def test_float64_and_uint16_chunks_in_float32_and_back(self):
        x = np.random.default_rng(4).random((90, 70))
        dx = da.from_array(cp.asarray(x), chunks=(32, 32), asarray=False)
        got = rd.gaussian_filter(dx, 6.0, mode="mirror").compute(scheduler="sync")
        self.assertEqual(got.dtype, cp.float64)
        want = ndimage.gaussian_filter(x, 6.0, mode="mirror")
        self.assertLess(float(np.abs(cp.asnumpy(got) - want).max()), 2e-6)
        counts = (x * 60000).astype(np.uint16)
        dc = da.from_array(cp.asarray(counts), chunks=(32, 32), asarray=False)
        got = rd.gaussian_filter(dc, 3.0).compute(scheduler="sync")
        self.assertEqual(got.dtype, cp.uint16)
        want = ndimage.gaussian_filter(counts, 3.0)
        self.assertLessEqual(int(np.abs(cp.asnumpy(got).astype(int) - want).max()), 1)

    def test_gradient_magnitude_and_recompute(self):
        x = np.random.default_rng(3).random((200, 150), dtype=np.float32)
        dx = da.from_array(cp.asarray(x), chunks=(64, 64), asarray=False)
        got = rd.gaussian_gradient_magnitude(dx, 4.0, recompute=True).compute(scheduler="sync")
        want = ndimage.gaussian_gradient_magnitude(x, 4.0)
        self.assertLess(float(np.abs(cp.asnumpy(got) - want).max()), 2e-6)


if __name__ == "__main__":
    unittest.main()
