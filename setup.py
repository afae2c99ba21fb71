"""The optional compiled search core (``bakers.solver._native``): the C library
in ``csrc/`` (compiled as one unit, ``csrc/bakers_all.c``) behind a thin CPython
module (``src/bakers/solver/_native.c``).

``pip install .`` builds it with the system's C compiler when there is one;
without a compiler (or with ``BAKERS_NO_NATIVE=1``) the build is skipped and
bakers runs on its Python engine. ``BAKERS_SANITIZE=1`` builds it with
AddressSanitizer and UndefinedBehaviorSanitizer (the CI's memory check).

With GCC the core is built twice, profile-guided: once instrumented, then
trained on ``pgo_train.py`` (surveys, hints, short lines and proofs: about
3 s), then again laid out for the branches that work took (FreeCell
surveys 10-12 % quicker). ``BAKERS_NO_PGO=1`` builds it once; any failure
on the way falls back to the one plain build.
"""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
compile_args = ["-O3", "-std=c11", "-Wall", "-Wextra"]
link_args: list[str] = []
sanitize = bool(os.environ.get("BAKERS_SANITIZE"))
if sanitize:
    flags = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer",
             "-fno-sanitize-recover=undefined"]
    compile_args = ["-O1", "-g", "-std=c11", *flags]
    link_args = flags


def is_gcc(command: list[str]) -> bool:
    try:
        out = subprocess.run([*command[:1], "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Free Software Foundation" in out and "clang" not in out.lower()


class BuildCore(build_ext):
    """build_ext with GCC's profile-guided optimisation for the core."""

    def build_extension(self, ext: Extension) -> None:
        compiler = getattr(self.compiler, "compiler_so", None) or []
        if (sanitize or os.environ.get("BAKERS_NO_PGO") or not compiler
                or not is_gcc(list(compiler))):
            super().build_extension(ext)
            return
        profiles = os.path.abspath(os.path.join(self.build_temp, "pgo-profiles"))
        base_compile, base_link = list(ext.extra_compile_args), list(ext.extra_link_args)
        force = self.force
        try:
            shutil.rmtree(profiles, ignore_errors=True)
            os.makedirs(profiles)
            self.force = True
            ext.extra_compile_args = [*base_compile, f"-fprofile-generate={profiles}",
                                      "-fprofile-update=single"]
            ext.extra_link_args = [*base_link, f"-fprofile-generate={profiles}"]
            super().build_extension(ext)
            subprocess.run([sys.executable, os.path.join(HERE, "pgo_train.py"),
                            self.get_ext_fullpath(ext.name), os.path.join(HERE, "src")],
                           check=True, cwd=HERE, timeout=600)
            if not any(name.endswith(".gcda") for _, _, names in os.walk(profiles)
                       for name in names):
                raise RuntimeError("the training wrote no profile")
            ext.extra_compile_args = [*base_compile, f"-fprofile-use={profiles}",
                                      "-fprofile-partial-training"]
            ext.extra_link_args = base_link
            super().build_extension(ext)
        except Exception as exc:
            print(f"bakers: profile-guided build failed ({exc}); building the core plainly",
                  file=sys.stderr)
            ext.extra_compile_args, ext.extra_link_args = base_compile, base_link
            super().build_extension(ext)
        finally:
            ext.extra_compile_args, ext.extra_link_args = base_compile, base_link
            self.force = force
            shutil.rmtree(profiles, ignore_errors=True)


ext_modules = []
if not os.environ.get("BAKERS_NO_NATIVE"):
    ext_modules.append(Extension(
        "bakers.solver._native",
        sources=["src/bakers/solver/_native.c", "csrc/bakers_all.c"],
        include_dirs=["csrc/include"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        optional=True,  # no compiler: install anyway and run on the Python engine
    ))

setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildCore})
