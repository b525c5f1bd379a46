"""pip install . into a fresh virtual environment, then the installed module used from elsewhere.

Run by CTest with the build tree's interpreter as
    python test_pip_install.py SOURCE_DIR BUILD_DIR
pip builds from the source tree with RF_BUILD_DIR=BUILD_DIR, so the module already built there goes
into the wheel and nothing is compiled again. Offline: --no-index, and --no-build-isolation takes
setuptools and wheel from the system's packages, which the environment sees
(--system-site-packages), as it sees numpy.
"""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR, BUILD_DIR = (Path(p).resolve() for p in sys.argv[1:3])

# Run in the environment from its own directory: numpy from the system, rfstudio only from the
# environment's site-packages (no user site, no PYTHONPATH pointing at the build tree).
USE_INSTALLED = r"""
import sys, numpy as np, rfstudio
print(rfstudio.__file__)
print(rfstudio.__version__)
print(rfstudio._rfstudio.__file__)
a = np.random.default_rng(3).random((23, 17), dtype=np.float32)
sat = rfstudio.filter(a, "sat", backend="cpu")
expected = a.astype(np.float64).cumsum(axis=0).cumsum(axis=1)
assert sat.shape == a.shape and sat.dtype == np.float32, (sat.shape, sat.dtype)
assert abs(sat - expected).max() < 1e-5 * expected.max(), abs(sat - expected).max()
blurred = rfstudio.filter(a, "gaussian", sigma=2, ext="mirror", backend="cpu")
assert blurred.shape == a.shape and blurred.dtype == np.float32
assert np.isfinite(blurred).all() and abs(blurred - a).max() > 0.05
assert abs(blurred.mean() - a.mean()) < 0.01  # a normalised filter, mirror: the mean stays
print("cuda available:", rfstudio.cuda_available())
"""


class PipInstall(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="rfstudio-pip-")
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)
        unwanted = ("PYTHON", "PIP_", "CMAKE_ARGS")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(unwanted)}
        self.env.update(PYTHONNOUSERSITE="1", PIP_DISABLE_PIP_VERSION_CHECK="1")

    def run_checked(self, *command, **kwargs):
        done = subprocess.run(command, capture_output=True, text=True, env=self.env, **kwargs)
        shown = " ".join(map(str, command))
        self.assertEqual(done.returncode, 0, f"{shown}\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def test_install_use_uninstall(self):
        venv = self.dir / "venv"
        # pip itself comes from the system too: the environment needs none of its own.
        self.run_checked(sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv)
        python = str(venv / "bin" / "python")
        pip = [python, "-m", "pip", "--no-cache-dir"]
        env_with_tree = dict(self.env, RF_BUILD_DIR=str(BUILD_DIR))
        done = subprocess.run(
            [*pip, "install", "--no-build-isolation", "--no-index", str(SOURCE_DIR)],
            capture_output=True, text=True, env=env_with_tree, cwd=self.dir,
        )
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("Successfully installed rfstudio", done.stdout)

        lines = self.run_checked(python, "-c", USE_INSTALLED, cwd=self.dir).splitlines()
        package, version, module = lines[0], lines[1], Path(lines[2])
        self.assertTrue(package.startswith(str(venv)), package)
        self.assertTrue(str(module).startswith(str(venv)), module)
        self.assertIn("Version: " + version, self.run_checked(*pip, "show", "rfstudio"))

        # Nothing of the build tree is needed at run time: librf is inside the module, and the
        # loader is sent nowhere under the build tree.
        ldd = subprocess.run(["ldd", module], capture_output=True, text=True)
        if ldd.returncode == 0:
            self.assertNotIn("librf", ldd.stdout)
            self.assertNotIn("not found", ldd.stdout)
            self.assertNotIn(str(BUILD_DIR), ldd.stdout)
        dynamic = subprocess.run(["readelf", "-d", module], capture_output=True, text=True)
        if dynamic.returncode == 0:
            self.assertNotIn(str(BUILD_DIR), dynamic.stdout)

        self.run_checked(*pip, "uninstall", "--yes", "rfstudio")
        gone = subprocess.run(
            [python, "-c", "import rfstudio; print(rfstudio.__file__)"],
            capture_output=True, text=True, env=self.env, cwd=self.dir,
        )
        self.assertFalse(gone.stdout.startswith(str(venv)), gone.stdout)
        self.assertFalse(module.exists())


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[3:])
