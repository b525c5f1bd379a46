"""The Python module rfstudio on the CPU: against rfcli (the same C++ results, the same messages),
against references in double written here with numpy alone, and on every array it accepts.

Run by CTest with /usr/bin/python3, build/python on PYTHONPATH and RFCLI naming rfcli.
"""

import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np

import rfstudio

RFCLI = os.environ.get("RFCLI", "")
EXTENSIONS = ["zero", "clamp", "repeat", "mirror", "reflect101"]
# numpy's names: 'symmetric' repeats the edge sample (our mirror), 'reflect' does not (reflect101).
NUMPY_PAD = {
    "zero": "constant",
    "clamp": "edge",
    "repeat": "wrap",
    "mirror": "symmetric",
    "reflect101": "reflect",
}


def random_image(shape, seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    if dtype in (np.uint8, np.uint16):
        return rng.integers(0, np.iinfo(dtype).max + 1, size=shape, dtype=dtype)
    return rng.random(shape, dtype=np.float32).astype(dtype)


def write_pfm(path, image):
    """PFM, little-endian, rows bottom-up: 'Pf' for one channel, 'PF' for three."""
    h, w = image.shape[:2]
    magic = b"PF" if image.ndim == 3 else b"Pf"
    with open(path, "wb") as f:
        f.write(magic + b"\n%d %d\n-1.0\n" % (w, h))
        f.write(np.ascontiguousarray(image[::-1], dtype="<f4").tobytes())


def read_pfm(path):
    with open(path, "rb") as f:
        magic = f.readline().strip()
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        data = np.frombuffer(f.read(), dtype="<f4" if scale < 0 else ">f4")
    shape = (h, w, 3) if magic == b"PF" else (h, w)
    return data.reshape(shape)[::-1].astype(np.float32)


def rfcli(*args):
    return subprocess.run([RFCLI, *args], capture_output=True, text=True)


def pad_length(a):
    """Samples of padding after which the impulse response of 1 / (1 + sum a_k z^-k) is below
    1e-14 of its start: log(1e-14) / log(|largest pole|)."""
    poles = np.roots(np.concatenate([[1.0], a]))
    return int(np.ceil(np.log(1e-14) / np.log(np.abs(poles).max()))) + 1


def recursive_reference(image, coeffs, ext, row_coeffs=None, cval=0.0):
    """Columns (down, up) then rows (right, left) of the pair
    y_i = b0 x_i - sum a_k y_{i-k},  z_i = b0 y_i - sum a_k z_{i+k}, in double, each line
    extended by padding long enough for the response to vanish (numpy's np.pad is the
    extension) and started from zero. The rows take row_coeffs where given. ext='constant'
    continues the image with cval: the rows see the columns' filter of it, cval times their
    gain at DC."""
    out = image.astype(np.float64)

    def lines(x, coeffs, value):  # x: lines along axis 0, everything else independent
        b0, a = coeffs["b0"], np.asarray(coeffs["a"])
        r, pad = len(a), pad_length(coeffs["a"])
        n = x.shape[0]
        width = [(pad, pad)] + [(0, 0)] * (x.ndim - 1)
        if ext == "constant":
            ext_x = np.pad(x, width, mode="constant", constant_values=value)
        else:
            ext_x = np.pad(x, width, mode=NUMPY_PAD[ext])
        y = np.zeros((n + 2 * pad + r,) + x.shape[1:])
        for i in range(n + 2 * pad):  # causal, y[r + i] is sample i
            y[r + i] = b0 * ext_x[i] - sum(a[k] * y[r + i - 1 - k] for k in range(r))
        z = np.zeros_like(y)
        for i in reversed(range(n + 2 * pad)):  # anticausal, z[i] is sample i
            z[i] = b0 * y[r + i] - sum(a[k] * z[i + 1 + k] for k in range(r))
        return z[pad : pad + n]

    gain = (coeffs["b0"] / (1.0 + sum(coeffs["a"]))) ** 2
    out = lines(out, coeffs, cval)
    out = np.moveaxis(lines(np.moveaxis(out, 1, 0), row_coeffs or coeffs, cval * gain), 0, 1)
    return out


def gaussian_fir_reference(image, sigma, ext, cval=0.0, radius=None):
    """The sampled Gaussian, normalised and truncated at 6 sigma (or `radius`), convolved in
    double."""
    if radius is None:
        radius = max(1, int(np.ceil(6 * sigma)))
    t = np.arange(-radius, radius + 1)
    kernel = np.exp(-0.5 * t * t / sigma**2)
    kernel /= kernel.sum()
    out = image.astype(np.float64)
    for axis in (0, 1):
        width = [(0, 0)] * out.ndim
        width[axis] = (radius, radius)
        if ext == "constant":  # the kernel sums to one: the rows see cval too
            padded = np.pad(out, width, mode="constant", constant_values=cval)
        else:
            padded = np.pad(out, width, mode=NUMPY_PAD[ext])
        n = out.shape[axis]
        out = sum(
            kernel[k] * np.take(padded, np.arange(k, k + n), axis=axis) for k in range(2 * radius + 1)
        )
    return out


class OnlyDlpack:
    """An array that numpy does not know, reachable only through DLPack (as a PyTorch CPU tensor
    would be)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


@unittest.skipUnless(RFCLI, "RFCLI names rfcli")
class SameAsRfcli(unittest.TestCase):
    """The module runs the library rfcli runs: the same pixels, coefficients and messages."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_filter_and_truth_pixels_equal_rfcli(self):
        cases = [
            ((31, 45), ["--filter", "gaussian", "--sigma", "3", "--order", "5", "--ext", "repeat"]),
            ((17, 33, 3), ["--filter", "deriche", "--sigma", "2.5", "--order", "4"]),
            ((20, 9, 3), ["--filter", "exp", "--pole", "-0.6", "--ext", "clamp"]),
            ((23, 26), ["--filter", "edge-aware", "--sigma", "6", "--sigma-r", "0.25"]),
        ]
        for shape, options in cases:
            with self.subTest(shape=shape, options=options):
                image = random_image(shape, seed=len(options) + shape[0])
                write_pfm(self.path("in.pfm"), image)
                kwargs = {"kind": options[1]}
                for key, value in zip(options[2::2], options[3::2]):
                    name = key[2:].replace("-", "_")
                    kwargs[name] = int(value) if name == "order" else value if name == "ext" else float(value)
                for command, function in (("filter", rfstudio.filter), ("truth", rfstudio.truth)):
                    extra = ["--backend", "cpu"] if command == "filter" else []
                    done = rfcli(command, self.path("in.pfm"), self.path("out.pfm"), *options, *extra)
                    self.assertEqual(done.returncode, 0, done.stderr)
                    expected = read_pfm(self.path("out.pfm"))
                    if command == "filter":
                        got = function(image, backend="cpu", **kwargs)
                    else:
                        got = function(image, **kwargs)
                    self.assertEqual(got.shape, image.shape)
                    self.assertEqual(got.dtype, np.float32)
                    np.testing.assert_array_equal(got, expected, err_msg=command)

    def test_coeffs_equal_rfcli_json(self):
        import json

        for options, kwargs in [
            (["--filter", "gaussian", "--sigma", "4", "--order", "5"], dict(sigma=4, order=5)),
            (["--filter", "bspline7"], {}),
            (["--filter", "exp", "--pole", "0.8"], dict(pole=0.8)),
            (["--filter", "sat"], {}),
        ]:
            with self.subTest(options=options):
                done = rfcli("coeffs", *options, "--json")
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertEqual(rfstudio.coeffs(options[1], **kwargs), json.loads(done.stdout))

    def test_mistakes_read_as_rfcli_prints_them(self):
        image = random_image((8, 9), seed=3)
        write_pfm(self.path("in.pfm"), image)
        cases = [
            (["--ext", "mirorr"], dict(ext="mirorr")),
            (["--filter", "gauss"], dict(kind="gauss")),
            (["--algo", "alg9"], dict(algo="alg9")),
            (["--backend", "gpu"], dict(backend="gpu")),
            (["--sigma", "-1"], dict(sigma=-1.0)),
            (["--order", "7"], dict(order=7)),
            (["--filter", "exp", "--pole", "1.5"], dict(kind="exp", pole=1.5)),
            (["--filter", "edge-aware", "--iterations", "0"], dict(kind="edge-aware", iterations=0)),
            (["--filter", "sat", "--ext", "mirror"], dict(kind="sat", ext="mirror")),
        ]
        for options, kwargs in cases:
            with self.subTest(options=options):
                done = rfcli("filter", self.path("in.pfm"), self.path("out.pfm"), *options)
                self.assertEqual(done.returncode, 2)
                self.assertTrue(done.stderr.startswith("rfcli: "), done.stderr)
                with self.assertRaises(ValueError) as caught:
                    rfstudio.filter(image, **kwargs)
                self.assertEqual(str(caught.exception), done.stderr[len("rfcli: ") :].strip())
        done = rfcli("coeffs", "--filter", "edge-aware")
        with self.assertRaises(ValueError) as caught:
            rfstudio.coeffs("edge-aware")
        self.assertEqual(str(caught.exception), done.stderr[len("rfcli: ") :].strip())

    def test_names_are_the_tables_rfcli_lists(self):
        image = random_image((8, 9), seed=5)
        write_pfm(self.path("in.pfm"), image)
        self.assertEqual(
            rfstudio.kinds,
            ("gaussian", "deriche", "yvrg", "bspline3", "bspline5", "bspline7", "exp", "sat", "edge-aware"),
        )
        self.assertEqual(
            rfstudio.extensions,
            ("ignore", "zero", "clamp", "repeat", "mirror", "reflect101", "constant"),
        )
        self.assertEqual(rfstudio.backends, ("auto", "cpu", "cuda"))
        for option, kwargs, names in [
            ("--filter", dict(kind="box"), rfstudio.kinds),
            ("--ext", dict(ext="spiral"), rfstudio.extensions),
            ("--algo", dict(algo="alg9"), rfstudio.algorithms),
            ("--backend", dict(backend="gpu"), rfstudio.backends),
        ]:
            with self.subTest(option=option):
                value = next(iter(kwargs.values()))
                done = rfcli("filter", self.path("in.pfm"), self.path("out.pfm"), option, value)
                self.assertEqual(done.returncode, 2)
                self.assertTrue(done.stderr.strip().endswith("(" + ", ".join(names) + ")"), done.stderr)
                with self.assertRaises(ValueError) as caught:
                    rfstudio.filter(image, **kwargs)
                self.assertEqual(str(caught.exception), done.stderr[len("rfcli: ") :].strip())
        for name in rfstudio.kinds + rfstudio.extensions + rfstudio.algorithms + rfstudio.backends:
            self.assertIn(name, rfstudio.filter.__doc__)
        # Every kind named alone filters, with the defaults rfcli gives it.
        for kind in rfstudio.kinds:
            with self.subTest(kind=kind):
                done = rfcli("filter", self.path("in.pfm"), self.path("out.pfm"), "--filter", kind,
                             "--backend", "cpu")
                self.assertEqual(done.returncode, 0, done.stderr)
                np.testing.assert_array_equal(rfstudio.filter(image, kind, backend="cpu"),
                                              read_pfm(self.path("out.pfm")))

    @unittest.skipIf(rfstudio.cuda_available(), "a CUDA device is present")
    def test_cuda_backend_without_a_device(self):
        write_pfm(self.path("in.pfm"), random_image((8, 9), seed=4))
        done = rfcli("filter", self.path("in.pfm"), self.path("out.pfm"), "--backend", "cuda")
        self.assertEqual(done.returncode, 2)
        with self.assertRaises(rfstudio.BackendUnavailable) as caught:
            rfstudio.filter(random_image((8, 9), seed=4), backend="cuda")
        self.assertIsInstance(caught.exception, RuntimeError)
        self.assertEqual(str(caught.exception), done.stderr[len("rfcli: ") :].strip())


class AgainstDoubleReferences(unittest.TestCase):
    """Independent references in double, from numpy alone."""

    def test_recursive_filters_every_extension(self):
        designs = [
            ("gaussian", dict(sigma=2.5, order=1)),
            ("gaussian", dict(sigma=3.0, order=3)),
            ("gaussian", dict(sigma=4.0, order=5)),
            ("deriche", dict(sigma=2.0, order=4)),
            ("bspline3", {}),
            ("bspline5", {}),
            ("exp", dict(pole=-0.7)),
        ]
        image = random_image((21, 34), seed=7)
        for kind, params in designs:
            coeffs = rfstudio.coeffs(kind, **params)
            for ext in EXTENSIONS:
                with self.subTest(kind=kind, params=params, ext=ext):
                    got = rfstudio.filter(image, kind, ext=ext, backend="cpu", **params)
                    expected = recursive_reference(image, coeffs, ext)
                    scale = np.abs(expected).max()
                    self.assertLess(np.abs(got - expected).max(), 2e-6 * scale)

    def test_constant_extension_continues_the_image_with_its_value(self):
        image = random_image((21, 17, 3), seed=12)
        for kind, params in (("gaussian", dict(sigma=5.0, order=3)), ("exp", dict(pole=0.7))):
            coeffs = rfstudio.coeffs(kind, **params)
            for algo in ("auto", "alg5", "alg6"):
                with self.subTest(kind=kind, algo=algo):
                    got = rfstudio.filter(
                        image, kind, ext="constant", cval=-0.6, algo=algo, backend="cpu", **params)
                    expected = recursive_reference(image, coeffs, "constant", cval=-0.6)
                    self.assertLess(np.abs(got - expected).max(), 2e-6 * np.abs(expected).max())
        # The truth takes the value too; a value without the constant extension is a mistake.
        truth = rfstudio.truth(image, "gaussian", sigma=2.0, ext="constant", cval=0.25)
        self.assertLess(np.abs(truth - gaussian_fir_reference(image, 2.0, "constant", 0.25)).max(),
                        1e-6)
        with self.assertRaisesRegex(ValueError, "only --ext constant takes a value"):
            rfstudio.filter(image, cval=0.5)

    def test_derivatives_are_differences_of_the_smoothed_image(self):
        # Under mirror the smoothed image continues by mirror: d/dx is its central difference
        # with the edge samples repeated, the smoothing along x taken with sigma^2 - 1/3
        # (design.h), along y with sigma itself.
        image = random_image((19, 23), seed=13)
        smooth = rfstudio.filter(image, "gaussian", sigma=(3.0, float(np.sqrt(9.0 - 1.0 / 3.0))),
                                 order=5, ext="mirror", backend="cpu")
        padded = np.pad(smooth, ((0, 0), (1, 1)), mode="symmetric")
        want = 0.5 * (padded[:, 2:] - padded[:, :-2])
        for algo in ("auto", "alg5"):
            with self.subTest(algo=algo):
                got = rfstudio.filter(image, "gaussian", sigma=3.0, order=5, ext="mirror",
                                      derivative="1,0", algo=algo, backend="cpu")
                self.assertLess(np.abs(got - want).max(), 1e-6)
        gradient = rfstudio.filter(image, "gaussian", sigma=3.0, derivative="gradient",
                                   normalized=True, backend="cpu")
        self.assertGreaterEqual(gradient.min(), 0.0)
        with self.assertRaisesRegex(ValueError, "a derivative's values are signed"):
            rfstudio.filter((image * 255).astype(np.uint8), derivative="1,0")
        with self.assertRaisesRegex(ValueError, "--derivative: 'up'"):
            rfstudio.filter(image, derivative="up")

    def test_sigma_per_axis_rows_first(self):
        image = random_image((23, 31, 4), seed=11)
        for kind, order in (("gaussian", 3), ("gaussian", 5), ("deriche", 2)):
            column = rfstudio.coeffs(kind, sigma=6.0, order=order)
            row = rfstudio.coeffs(kind, sigma=1.5, order=order)
            for ext in EXTENSIONS:
                for algo in ("auto", "alg5"):
                    with self.subTest(kind=kind, order=order, ext=ext, algo=algo):
                        got = rfstudio.filter(
                            image, kind, sigma=(6.0, 1.5), order=order, ext=ext, algo=algo,
                            backend="cpu")
                        expected = recursive_reference(image, column, ext, row)
                        self.assertLess(np.abs(got - expected).max(), 1e-5 * np.abs(expected).max())
        # One sigma twice is one sigma; a list reads as a tuple.
        one = rfstudio.filter(image, sigma=3.0, backend="cpu")
        np.testing.assert_array_equal(rfstudio.filter(image, sigma=[3.0, 3.0], backend="cpu"), one)
        with self.assertRaisesRegex(ValueError, "sigma along y must be > 0"):
            rfstudio.filter(image, sigma=(0.0, 2.0))
        with self.assertRaises(TypeError):
            rfstudio.filter(image, sigma=(1.0, 2.0, 3.0))

    def test_summed_area_table_is_a_cumulative_sum(self):
        image = random_image((19, 27), seed=8)
        expected = image.astype(np.float64).cumsum(axis=0).cumsum(axis=1)
        for ext in ("zero", None):  # None: the table's own default, zero
            got = rfstudio.filter(image, "sat", ext=ext, backend="cpu")
            self.assertLess(np.abs(got - expected).max(), 1e-6 * expected.max())

    def test_truth_is_the_fir_gaussian(self):
        image = random_image((25, 18, 2), seed=9)
        for ext in EXTENSIONS:
            with self.subTest(ext=ext):
                got = rfstudio.truth(image, "gaussian", sigma=2.0, ext=ext)
                self.assertEqual(got.dtype, np.float32)
                expected = gaussian_fir_reference(image, 2.0, ext)
                self.assertLess(np.abs(got - expected).max(), 1e-6)

    def test_fir_method_is_scipys_kernel(self):
        image = random_image((21, 17, 3), seed=12)
        for ext in EXTENSIONS:
            with self.subTest(ext=ext):
                got = rfstudio.filter(image, sigma=1.5, ext=ext, gaussian_method="fir",
                                      backend="cpu")
                # scipy.ndimage's radius: int(truncate * sigma + 0.5) at truncate 4.
                expected = gaussian_fir_reference(image, 1.5, ext, radius=6)
                self.assertLess(np.abs(got - expected).max(), 1e-6)
        engine = rfstudio.Engine(sigma=0.3, gaussian_method="auto", backend="cpu")
        self.assertEqual((engine.method, engine.algorithm), ("", ""))
        engine.run(image)
        self.assertEqual(engine.method, "FIR radius 1")  # below the order-3 design's least sigma
        self.assertEqual(engine.algorithm, "fir")
        engine = rfstudio.Engine(sigma=4.0, backend="cpu")  # the CPU's auto: the line filter
        engine.run(image)
        self.assertEqual((engine.method, engine.algorithm), ("recursive order 3", "rt"))
        with self.assertRaisesRegex(ValueError, "derivatives take the recursive filter"):
            rfstudio.filter(image, derivative="1,0", gaussian_method="fir")
        self.assertEqual(rfstudio.gaussian_methods, ("recursive", "fir", "auto"))

    def test_filter_approximates_the_gaussian(self):
        image = random_image((40, 40), seed=10)
        got = rfstudio.filter(image, "gaussian", sigma=4.0, order=5, backend="cpu")
        self.assertLess(np.abs(got - gaussian_fir_reference(image, 4.0, "mirror")).max(), 2e-3)


class Arrays(unittest.TestCase):
    """Every shape, dtype and layout the module accepts, and what it refuses."""

    def test_shapes_keep_shape_and_dtype_and_channels_stay_apart(self):
        for shape in [(1, 1), (1, 7), (9, 1), (13, 11), (13, 11, 1), (13, 11, 2), (13, 11, 3), (13, 11, 4)]:
            image = random_image(shape, seed=sum(shape))
            with self.subTest(shape=shape):
                got = rfstudio.filter(image, sigma=2.0, backend="cpu")
                self.assertEqual(got.shape, image.shape)
                self.assertEqual(got.dtype, np.float32)
                self.assertFalse(np.shares_memory(got, image))
                planes = image.reshape(shape[:2] + (-1,))
                for c in range(planes.shape[2]):
                    alone = rfstudio.filter(np.ascontiguousarray(planes[:, :, c]), sigma=2.0, backend="cpu")
                    np.testing.assert_allclose(got.reshape(planes.shape)[:, :, c], alone, atol=1e-6)

    def test_uint8_is_filtered_on_unit_range_and_rounded(self):
        for shape in [(12, 17), (12, 17, 3), (12, 17, 4)]:
            image = random_image(shape, seed=11, dtype=np.uint8)
            with self.subTest(shape=shape):
                got = rfstudio.filter(image, sigma=1.5, backend="cpu")
                self.assertEqual(got.dtype, np.uint8)
                as_float = rfstudio.filter(image.astype(np.float32) / np.float32(255), sigma=1.5, backend="cpu")
                expected = np.clip(as_float * np.float32(255) + np.float32(0.5), 0, 255).astype(np.uint8)
                np.testing.assert_array_equal(got, expected)

    def test_uint16_and_float16_are_filtered_in_float(self):
        # uint16 on [0, 1] as uint8 is, rounded back; float16 decoded and rounded to nearest.
        for shape in [(12, 17), (12, 17, 3), (12, 17, 4)]:
            levels = random_image(shape, seed=19, dtype=np.uint16)
            halves = random_image(shape, seed=20, dtype=np.float16)
            with self.subTest(shape=shape):
                got = rfstudio.filter(levels, sigma=1.5, backend="cpu")
                self.assertEqual(got.dtype, np.uint16)
                as_float = rfstudio.filter(levels.astype(np.float32) / np.float32(65535), sigma=1.5, backend="cpu")
                expected = np.clip(np.rint(as_float * np.float32(65535)), 0, 65535).astype(np.uint16)
                np.testing.assert_array_equal(got, expected)
                got = rfstudio.filter(halves, sigma=1.5, ext="constant", cval=0.25, backend="cpu")
                self.assertEqual(got.dtype, np.float16)
                as_float = rfstudio.filter(halves.astype(np.float32), sigma=1.5, ext="constant", cval=0.25, backend="cpu")
                np.testing.assert_array_equal(got, as_float.astype(np.float16))
        derivative = rfstudio.filter(random_image((12, 17), seed=21, dtype=np.float16), derivative="1,0", backend="cpu")
        self.assertEqual(derivative.dtype, np.float16)
        self.assertLess(derivative.min(), 0)
        with self.assertRaisesRegex(ValueError, "signed"):
            rfstudio.filter(random_image((12, 17), seed=22, dtype=np.uint16), derivative="1,0")

    def test_any_strides(self):
        base = random_image((40, 50, 4), seed=12)
        views = {
            "crop": base[3:30, 5:44],
            "every other pixel": base[::2, ::2],
            "flipped": base[::-1, ::-1],
            "transposed": base.transpose(1, 0, 2),
            "one channel of four": base[:, :, 2],
            "three of four": base[:, :, :3],
            "fortran order": np.asfortranarray(base[:, :, 0]),
        }
        for name, view in views.items():
            with self.subTest(view=name):
                got = rfstudio.filter(view, sigma=3.0, ext="clamp", backend="cpu")
                expected = rfstudio.filter(np.ascontiguousarray(view), sigma=3.0, ext="clamp", backend="cpu")
                np.testing.assert_array_equal(got, expected)

    def test_out_and_in_place(self):
        image = random_image((16, 21, 4), seed=13)
        expected = rfstudio.filter(image, sigma=2.0, backend="cpu")
        out = np.empty_like(image)
        self.assertIs(rfstudio.filter(image, sigma=2.0, backend="cpu", out=out), out)
        np.testing.assert_array_equal(out, expected)
        for layout in [image.copy(), image[:, :, :3].copy(), image.astype(np.float32)[::-1].copy()[::-1]]:
            with self.subTest(shape=layout.shape):
                reference = rfstudio.filter(layout, sigma=2.0, backend="cpu")
                self.assertIs(rfstudio.filter(layout, sigma=2.0, backend="cpu", out=layout), layout)
                np.testing.assert_array_equal(layout, reference)

    def test_bad_out(self):
        image = random_image((16, 21), seed=14)
        read_only = np.empty((16, 21), np.float32)
        read_only.flags.writeable = False
        for out, words in [
            (np.empty((16, 20), np.float32), "differs"),
            (np.empty((16, 21), np.uint8), "differs"),
            (read_only, "read-only"),
        ]:
            with self.subTest(words=words):
                with self.assertRaisesRegex(ValueError, words):
                    rfstudio.filter(image, out=out)
        big = random_image((20, 21), seed=15)
        with self.assertRaisesRegex(ValueError, "overlaps"):
            rfstudio.filter(big[:16], out=big[4:])

    def test_refused_arrays(self):
        cases = [
            (np.zeros((4, 5), np.float64), "dtype float64"),
            (np.zeros((4, 5), np.int32), "dtype int32"),
            (np.zeros((4, 5, 5), np.float32), "5 channels"),
            (np.zeros((2, 4, 5, 1), np.float32), "4 dimensions"),
            (np.zeros(7, np.float32), "1 dimensions"),
            (np.zeros((0, 5), np.float32), "empty"),
            (np.zeros((4, 5), ">f4"), "dtype"),
            (np.zeros((4, 5), ">u2"), "dtype"),
            (np.zeros((4, 5), np.int16), "dtype int16"),
        ]
        for array, words in cases:
            with self.subTest(words=words):
                with self.assertRaisesRegex(ValueError, words):
                    rfstudio.filter(array)

    def test_host_dlpack(self):
        for image in [
            random_image((15, 22), seed=16),
            random_image((15, 22, 4), seed=17)[::2, 1::3],
            random_image((15, 22, 3), seed=18, dtype=np.uint8),
        ]:
            with self.subTest(shape=image.shape, dtype=image.dtype):
                before = sys.getrefcount(image)
                for _ in range(3):
                    got = rfstudio.filter(OnlyDlpack(image), sigma=2.0, backend="cpu")
                self.assertIsInstance(got, np.ndarray)
                np.testing.assert_array_equal(got, rfstudio.filter(image, sigma=2.0, backend="cpu"))
                # The producer's deleter ran: nothing still holds the array.
                self.assertEqual(sys.getrefcount(image), before)

    def test_lists_and_buffers_read_through_numpy(self):
        image = random_image((6, 7), seed=19)
        expected = rfstudio.filter(image, backend="cpu")
        np.testing.assert_array_equal(rfstudio.filter(memoryview(image), backend="cpu"), expected)
        with self.assertRaisesRegex(ValueError, "dtype float64"):
            rfstudio.filter(image.tolist())

    @unittest.skipIf(rfstudio.cuda_available(), "a CUDA device is present")
    def test_gpu_arrays_without_cuda(self):
        class FakeCudaArray:
            __cuda_array_interface__ = {
                "shape": (4, 4),
                "typestr": "<f4",
                "data": (1 << 40, False),
                "version": 3,
            }

        with self.assertRaises(rfstudio.BackendUnavailable):
            rfstudio.filter(FakeCudaArray())
        with self.assertRaises(rfstudio.BackendUnavailable):
            rfstudio.DeviceArray(random_image((4, 4), seed=20))


class Engines(unittest.TestCase):
    def test_plan_once_run_many(self):
        engine = rfstudio.Engine("gaussian", sigma=3.0, order=4, ext="repeat", backend="cpu", timing=True)
        self.assertEqual(engine.backend, "cpu")
        self.assertIn("CPU", engine.description)
        self.assertIn("gaussian order 4 sigma 3", engine.spec)
        for seed, shape in enumerate([(30, 40, 4), (30, 40, 4), (17, 19), (30, 40, 4)]):
            frame = random_image(shape, seed=30 + seed)
            with self.subTest(shape=shape):
                got = engine.run(frame)
                np.testing.assert_array_equal(
                    got, rfstudio.filter(frame, sigma=3.0, order=4, ext="repeat", backend="cpu")
                )
                stages = [stage for stage, ms in engine.timings]
                self.assertIn("columns", stages)
                self.assertTrue(all(ms >= 0 for _, ms in engine.timings))

    def test_bad_parameters_refused_at_construction(self):
        with self.assertRaisesRegex(ValueError, "sigma must be > 0"):
            rfstudio.Engine(sigma=0.0)

    def test_edge_aware_algorithms_against_algorithm_a_in_double(self):
        image = random_image((24, 31, 3), seed=40)
        truth = rfstudio.truth(image, "edge-aware", sigma=5.0, sigma_r=0.3)
        for algo, tolerance in [("a", 1e-5), ("exact", 1e-5), ("c", 1e-2), ("d", 1e-2)]:
            with self.subTest(algo=algo):
                engine = rfstudio.Engine("edge-aware", sigma=5.0, sigma_r=0.3, algo=algo, backend="cpu")
                self.assertLess(np.abs(engine.run(image) - truth).max(), tolerance)

    def test_the_gil_is_released_while_filtering(self):
        # Large enough that one run spans several of this thread's beats on a 16-core machine.
        image = random_image((3072, 3072, 4), seed=41)
        engine = rfstudio.Engine("gaussian", sigma=4.0, backend="cpu")
        engine.run(image)  # planned
        started = threading.Event()
        span = []

        def work():
            started.set()
            t0 = time.perf_counter()
            engine.run(image)
            span.extend([t0, time.perf_counter()])

        worker = threading.Thread(target=work)
        worker.start()
        started.wait()
        beats = []
        while worker.is_alive():
            beats.append(time.perf_counter())
        worker.join()
        # Holding the GIL, the worker would let this thread run only before and after the call,
        # never in the middle half of it.
        t0, t1 = span
        middle = [t for t in beats if t0 + 0.25 * (t1 - t0) < t < t0 + 0.75 * (t1 - t0)]
        self.assertGreater(t1 - t0, 0.02)
        self.assertGreater(len(middle), 10)

    def test_threads_share_an_engine(self):
        engine = rfstudio.Engine("bspline3", backend="cpu")
        frames = [random_image((64, 48), seed=50 + i) for i in range(8)]
        results = [None] * len(frames)

        def work(i):
            results[i] = engine.run(frames[i])

        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(frames))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for frame, got in zip(frames, results):
            np.testing.assert_array_equal(got, rfstudio.filter(frame, "bspline3", backend="cpu"))


if __name__ == "__main__":
    unittest.main()
