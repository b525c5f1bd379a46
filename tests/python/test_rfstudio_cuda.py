"""The Python module rfstudio on the GPU: arrays in device memory filtered where they are, through
rfstudio.DeviceArray, __cuda_array_interface__ and __dlpack__, against the CPU backend.

Without a usable CUDA device it prints [skipped] and exits 77, which CTest reports as skipped.
CuPy and PyTorch are used when they are installed, and not needed otherwise.
"""

import sys
import unittest

import numpy as np

import rfstudio

LAYOUTS = [
    ((37, 53), np.float32),
    ((37, 53, 4), np.float32),
    ((37, 53, 4), np.uint8),
    ((37, 53), np.uint16),
    ((37, 53), np.float16),
]


def random_image(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype in (np.uint8, np.uint16):
        return rng.integers(0, np.iinfo(dtype).max + 1, size=shape, dtype=dtype)
    return rng.random(shape, dtype=np.float32).astype(dtype)


class OnlyCudaArrayInterface:
    """A device array known only by its __cuda_array_interface__ (as Numba and CuPy show one)."""

    def __init__(self, device_array, **changes):
        self.device_array = device_array  # keeps the memory alive
        self.__cuda_array_interface__ = dict(device_array.__cuda_array_interface__, **changes)


class OnlyDlpack:
    """A device array known only through DLPack (as PyTorch and JAX show one)."""

    def __init__(self, device_array):
        self.device_array = device_array

    def __dlpack__(self, stream=None):
        return self.device_array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.device_array.__dlpack_device__()


def tolerance(dtype):
    # Integer and float16 results may round differently on the two backends (a level, an ulp of
    # float16 on [0, 1)); float32 ones agree to float rounding.
    return {np.uint8: 1, np.uint16: 1, np.float16: 2.0**-11}.get(dtype, 2e-5)


class DeviceArrays(unittest.TestCase):
    def assert_close(self, got, expected, dtype):
        diff = np.abs(got.astype(np.float64) - expected.astype(np.float64)).max()
        self.assertLessEqual(diff, tolerance(dtype))

    def test_round_trip(self):
        for shape, dtype in LAYOUTS:
            image = random_image(shape, dtype, seed=1)
            with self.subTest(shape=shape, dtype=dtype):
                d = rfstudio.DeviceArray(image)
                self.assertEqual(d.shape, image.shape)
                self.assertEqual(d.dtype, image.dtype)
                self.assertEqual(d.__dlpack_device__()[0], 2)
                np.testing.assert_array_equal(d.numpy(), image)
                # A strided host array is packed on the way.
                np.testing.assert_array_equal(rfstudio.DeviceArray(image[::-1]).numpy(), image[::-1])

    def test_filtered_where_they_are(self):
        for shape, dtype in LAYOUTS:
            image = random_image(shape, dtype, seed=2)
            cpu = rfstudio.filter(image, sigma=3.0, order=4, ext="mirror", backend="cpu")
            host_on_cuda = rfstudio.filter(image, sigma=3.0, order=4, ext="mirror", backend="cuda")
            self.assertIsInstance(host_on_cuda, np.ndarray)
            self.assert_close(host_on_cuda, cpu, dtype)
            device = rfstudio.DeviceArray(image)
            for name, wrap in [
                ("DeviceArray", lambda d: d),
                ("__cuda_array_interface__", OnlyCudaArrayInterface),
                ("__dlpack__", OnlyDlpack),
            ]:
                with self.subTest(shape=shape, dtype=dtype, via=name):
                    for backend in ("cuda", "auto"):
                        out = rfstudio.filter(wrap(device), sigma=3.0, order=4, backend=backend)
                        self.assertIsInstance(out, rfstudio.DeviceArray)
                        self.assertEqual(out.shape, image.shape)
                        self.assertEqual(out.dtype, image.dtype)
                        self.assert_close(out.numpy(), host_on_cuda, dtype)
                    # The input is left as it was.
                    np.testing.assert_array_equal(device.numpy(), image)

    def test_out_and_in_place_on_the_device(self):
        image = random_image((29, 41, 4), np.float32, seed=3)
        expected = rfstudio.filter(image, "bspline3", backend="cuda")
        device = rfstudio.DeviceArray(image)
        out = rfstudio.DeviceArray(np.zeros_like(image))
        self.assertIs(rfstudio.filter(device, "bspline3", out=out), out)
        np.testing.assert_array_equal(out.numpy(), expected)
        self.assertIs(rfstudio.filter(device, "bspline3", out=device), device)
        np.testing.assert_array_equal(device.numpy(), expected)

    def test_engine_runs_frames_on_the_device(self):
        engine = rfstudio.Engine("edge-aware", sigma=8.0, sigma_r=0.25, backend="cuda", timing=True)
        self.assertEqual(engine.backend, "cuda")
        for seed in range(3):
            image = random_image((64, 80, 4), np.float32, seed=10 + seed)
            with self.subTest(seed=seed):
                out = engine.run(rfstudio.DeviceArray(image))
                self.assertIsInstance(out, rfstudio.DeviceArray)
                truth = rfstudio.truth(image, "edge-aware", sigma=8.0, sigma_r=0.25)
                self.assertLess(np.abs(out.numpy() - truth).max(), 1e-3)
                self.assertTrue(engine.timings)

    def test_refused(self):
        device = rfstudio.DeviceArray(random_image((16, 16, 4), np.float32, seed=4))
        with self.assertRaisesRegex(ValueError, "needs the CUDA backend"):
            rfstudio.filter(device, backend="cpu")
        # Three of four channels: not a layout the kernels read.
        three = OnlyCudaArrayInterface(device, shape=(16, 16, 3))
        with self.assertRaisesRegex(ValueError, "filtered on the GPU as"):
            rfstudio.filter(three)
        with self.assertRaisesRegex(ValueError, "differs"):
            rfstudio.filter(device, out=rfstudio.DeviceArray(random_image((16, 16), np.float32, 5)))
        with self.assertRaisesRegex(ValueError, "host"):
            rfstudio.truth(device)
        with self.assertRaisesRegex(ValueError, "channels"):
            rfstudio.DeviceArray(random_image((8, 8, 3), np.float32, seed=6))

    def test_other_libraries(self):
        image = random_image((33, 47), np.float32, seed=7)
        expected = rfstudio.filter(image, sigma=2.0, backend="cuda")
        tried = 0
        try:
            import cupy
        except ImportError:
            cupy = None
        if cupy is not None:
            tried += 1
            out = rfstudio.filter(cupy.asarray(image), sigma=2.0)
            np.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(out)), expected)
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None and torch.cuda.is_available():
            tried += 1
            out = rfstudio.filter(torch.from_numpy(image).cuda(), sigma=2.0)
            np.testing.assert_array_equal(torch.from_dlpack(out).cpu().numpy(), expected)
        if not tried:
            self.skipTest("neither CuPy nor PyTorch with CUDA is installed")


class NdimageOnTheGpu(unittest.TestCase):
    """rfstudio.ndimage on CuPy arrays and PyTorch CUDA tensors: the same library's array back,
    equal to the CPU's filter of the same design (order 5) to float rounding."""

    def cpu(self, image, sigma, ext, cval=0.0):
        planes = image.reshape(image.shape[0], image.shape[1], -1).astype(np.float32)
        out = np.empty_like(planes)
        kwargs = dict(cval=cval) if ext == "constant" else {}
        for c in range(planes.shape[2]):
            out[:, :, c] = rfstudio.filter(np.ascontiguousarray(planes[:, :, c]), "gaussian",
                                           sigma=sigma, order=5, ext=ext, backend="cpu", **kwargs)
        return out.reshape(image.shape)

    def close(self, got, want, tolerance=2e-5):
        self.assertLess(np.abs(np.asarray(got, np.float64) - want).max(),
                        tolerance * max(1.0, np.abs(want).max()))

    def test_cupy(self):
        try:
            import cupy
        except ImportError:
            self.skipTest("CuPy is not installed")
        from rfstudio import ndimage

        image = random_image((37, 53), np.float32, seed=21)
        got = ndimage.gaussian_filter(cupy.asarray(image), 3.0, mode="mirror")
        self.assertIsInstance(got, cupy.ndarray)
        self.assertEqual(got.dtype, cupy.float32)
        self.close(cupy.asnumpy(got), self.cpu(image, 3.0, "reflect101"))
        color = random_image((29, 31, 3), np.float32, seed=22).astype(np.float64)
        got = ndimage.gaussian_filter(cupy.asarray(color), (2.0, 2.0, 0.0), mode="constant",
                                      cval=0.4)
        self.assertEqual(got.dtype, cupy.float64)
        self.assertEqual(got.shape, color.shape)
        self.close(cupy.asnumpy(got), self.cpu(color, 2.0, "constant", 0.4))
        out = cupy.empty((37, 53), cupy.float32)
        self.assertIs(ndimage.gaussian_filter(cupy.asarray(image), 3.0, output=out), out)
        # Derivatives and both measures on the GPU equal the CPU's, clamp padded, mirror not.
        for ext, mode in (("clamp", "nearest"), ("mirror", "reflect")):
            for name, call in (
                    ("1,0", lambda a: ndimage.gaussian_filter(a, 3.0, order=(0, 1), mode=mode)),
                    ("gradient", lambda a: ndimage.gaussian_gradient_magnitude(a, 3.0, mode=mode)),
                    ("laplacian", lambda a: ndimage.gaussian_laplace(a, 3.0, mode=mode))):
                with self.subTest(ext=ext, derivative=name):
                    got = call(cupy.asarray(image))
                    self.assertIsInstance(got, cupy.ndarray)
                    want = rfstudio.filter(image, "gaussian", sigma=3.0, order=5, ext=ext,
                                           derivative=name, backend="cpu")
                    self.close(cupy.asnumpy(got), want, 1e-5)

    def test_volumes_and_batches(self):
        # A 3-D CuPy volume along every axis (a mode per axis, a derivative, a measure) and a
        # batch of PyTorch images: the CPU's N-D filter of the same arrays, to float rounding.
        from rfstudio import ndimage

        volume = random_image((13, 17, 19), np.float32, seed=24)
        cases = (
            lambda a: ndimage.gaussian_filter(a, (1.5, 2.5, 4.0), mode=("wrap", "nearest", "mirror")),
            lambda a: ndimage.gaussian_filter(a, 3.0, order=(0, 1, 0), mode="constant", cval=0.3),
            lambda a: ndimage.gaussian_laplace(a, 2.0, mode="reflect"),
            lambda a: ndimage.gaussian_filter1d(a, 6.0, axis=0, mode="mirror"),
        )
        try:
            import cupy
        except ImportError:
            cupy = None
        if cupy is not None:
            for i, call in enumerate(cases):
                with self.subTest(cupy_case=i):
                    got = call(cupy.asarray(volume))
                    self.assertIsInstance(got, cupy.ndarray)
                    self.close(cupy.asnumpy(got), call(volume))
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None and torch.cuda.is_available():
            batch = random_image((5, 3, 21, 23), np.float32, seed=25)
            call = lambda a: ndimage.gaussian_filter(a, (0, 0, 2.0, 3.0), mode="nearest")
            got = call(torch.from_numpy(batch).cuda())
            self.assertTrue(got.is_cuda)
            self.close(got.cpu().numpy(), call(batch))
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                got = call(torch.from_numpy(batch).cuda())
            stream.synchronize()
            self.close(got.cpu().numpy(), call(batch))

    def test_torch(self):
        try:
            import torch
        except ImportError:
            self.skipTest("PyTorch is not installed")
        if not torch.cuda.is_available():
            self.skipTest("PyTorch sees no CUDA device")
        from rfstudio import ndimage

        image = random_image((40, 41), np.float32, seed=23)
        got = ndimage.gaussian_filter(torch.from_numpy(image).cuda(), 5.0, mode="wrap")
        self.assertIsInstance(got, torch.Tensor)
        self.assertTrue(got.is_cuda)
        self.close(got.cpu().numpy(), self.cpu(image, 5.0, "repeat"))
        bytes_ = np.rint(image * 255).astype(np.uint8)
        got = ndimage.gaussian_filter(torch.from_numpy(bytes_).cuda(), 2.0, mode="nearest")
        self.assertEqual(got.dtype, torch.uint8)
        want = self.cpu(bytes_.astype(np.float32), 2.0, "clamp")
        self.assertLessEqual(np.abs(got.cpu().numpy().astype(np.float64) - want).max(), 0.5 + 1e-3)


if __name__ == "__main__":
    if not rfstudio.cuda_available():
        print("[skipped] no usable CUDA device: " + rfstudio.Engine().note)
        sys.exit(77)
    unittest.main()
