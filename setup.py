"""pip install . : the Python module rfstudio, built by the project's CMake build.

build_ext configures the repository for the library and the module alone (no apps, no GUI, no
tests), builds the one target rfstudio_python (librf static and position-independent inside it,
the CUDA runtime linked statically where CUDA is enabled) and puts _rfstudio*.so beside
python/rfstudio/__init__.py in the package. The installed module needs no file of the build.

Environment:
  CMAKE_ARGS                  more configure arguments, e.g. -DRF_WITH_CUDA=OFF or
                              -DCMAKE_CUDA_ARCHITECTURES=90
  CMAKE_BUILD_PARALLEL_LEVEL  parallel build jobs (default: every core)
  RF_BUILD_DIR                a configured build tree of the project: build the module there and
                              take it from there (CMAKE_ARGS does not apply)
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import ExecError

ROOT = Path(__file__).resolve().parent
TARGET = "rfstudio_python"
# Where the module's target writes the package (RF_PYTHON_PACKAGE_DIR, python/CMakeLists.txt).
PACKAGE_DIR = Path("python", "rfstudio")


def project_version():
    """The one version: project(rfstudio VERSION x.y.z) in CMakeLists.txt."""
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(\s*rfstudio\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", text)
    if not match:
        raise SystemExit(f"error: rfstudio: no project(rfstudio VERSION x.y.z) in {ROOT}/CMakeLists.txt")
    return match.group(1)


def read_cache(tree):
    """The entries of the tree's CMakeCache.txt, NAME -> value."""
    entries = {}
    for line in (tree / "CMakeCache.txt").read_text().splitlines():
        match = re.match(r"([^#/][^:=]*):[A-Z]+=(.*)", line)
        if match:
            entries[match.group(1)] = match.group(2)
    return entries


def is_on(value):
    return value.upper() in ("ON", "1", "TRUE", "YES", "Y")


class CMakeBuild(build_ext):
    """Builds the extension rfstudio._rfstudio with CMake, not with setuptools' own compiler."""

    def build_extension(self, ext):
        cmake = shutil.which("cmake")
        if cmake is None:
            raise ExecError(
                "rfstudio: cmake not found on PATH (CMake 3.24 or newer; Debian: apt-get install cmake)"
            )
        if GIVEN_TREE:
            tree = GIVEN_TREE
            if os.environ.get("CMAKE_ARGS"):
                print(f"rfstudio: CMAKE_ARGS not applied: {tree} (RF_BUILD_DIR) is configured already")
        else:
            tree = Path(self.build_temp).resolve() / "cmake"
            self.configure(cmake, tree)

        cache = read_cache(tree)
        if not is_on(cache.get("RF_WITH_PYTHON", "OFF")):
            raise ExecError(f"rfstudio: {tree} is configured with RF_WITH_PYTHON=OFF: no module")
        if is_on(cache.get("RF_SHARED", "OFF")):
            raise ExecError(
                f"rfstudio: {tree} builds librf shared (RF_SHARED=ON); the module must hold it static"
            )

        command = [cmake, "--build", str(tree), "--target", TARGET]
        if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ:
            command += ["--parallel", str(os.cpu_count() or 1)]
        self.run_step(command, f"build of {TARGET} in {tree}")

        name = "_rfstudio" + sysconfig.get_config_var("EXT_SUFFIX")
        built = tree / PACKAGE_DIR / name
        if not built.is_file():
            found = sorted(p.name for p in (tree / PACKAGE_DIR).glob("_rfstudio*"))
            if found:
                raise ExecError(
                    f"rfstudio: {tree} holds the module for another Python ({', '.join(found)}), "
                    f"not {name}: configure it with -DPython_EXECUTABLE={sys.executable}"
                )
            raise ExecError(f"rfstudio: the build made no {built}")
        destination = Path(self.get_ext_fullpath(ext.name))
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, destination)

    def configure(self, cmake, tree):
        """Configures the library and the module alone, for this interpreter, in Release. Other
        arguments than those of the last configure that succeeded start the tree afresh rather
        than mixing with its cache."""
        command = [
            cmake,
            "-S", str(ROOT),
            "-B", str(tree),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DRF_WITH_APPS=OFF",
            "-DRF_WITH_GUI=OFF",
            "-DBUILD_TESTING=OFF",
            "-DRF_WITH_PYTHON=ON",
            "-DRF_SHARED=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
            *shlex.split(os.environ.get("CMAKE_ARGS", "")),
        ]
        stamp = tree / "rfstudio-configure.txt"
        signature = shlex.join(command) + "\n" + os.environ.get("CMAKE_GENERATOR", "") + "\n"
        configured = stamp.read_text() if stamp.exists() else None
        if (tree / "CMakeCache.txt").exists() and configured != signature:
            command.append("--fresh")
        tree.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)  # a configure that fails leaves a cache to start afresh from
        self.run_step(command, "configure")
        stamp.write_text(signature)

    def run_step(self, command, what):
        print("rfstudio:", shlex.join(command), flush=True)
        try:
            done = subprocess.run(command, cwd=ROOT)
        except OSError as error:
            raise ExecError(f"rfstudio: CMake {what} could not start: {error}") from None
        if done.returncode != 0:
            raise ExecError(
                f"rfstudio: CMake {what} failed (exit {done.returncode}); the messages above say why"
            )


def given_tree():
    """The build tree RF_BUILD_DIR names, once it is known to be a configured build of this
    source tree (nothing is written to it before)."""
    given = os.environ.get("RF_BUILD_DIR")
    if not given:
        return None
    tree = Path(given).resolve()
    if not (tree / "CMakeCache.txt").is_file():
        raise SystemExit(f"error: rfstudio: RF_BUILD_DIR={given}: no configured build tree there")
    source = read_cache(tree).get("CMAKE_HOME_DIRECTORY", "")
    if not source or Path(source).resolve() != ROOT:
        raise SystemExit(
            f"error: rfstudio: RF_BUILD_DIR={given} is a build of {source or 'another tree'}, not of {ROOT}"
        )
    return tree


GIVEN_TREE = given_tree()
# setuptools' own files (build/, *.egg-info) go to build-pip/, apart from the project's build/, or
# into the build tree that RF_BUILD_DIR names, so that the source tree is left as it was.
BUILD_BASE = GIVEN_TREE / "pip" if GIVEN_TREE else ROOT / "build-pip"
BUILD_BASE.mkdir(parents=True, exist_ok=True)

setup(
    version=project_version(),
    packages=["rfstudio"],
    package_dir={"rfstudio": str(PACKAGE_DIR)},
    ext_modules=[Extension("rfstudio._rfstudio", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(BUILD_BASE)}, "egg_info": {"egg_base": str(BUILD_BASE)}},
    zip_safe=False,
)
