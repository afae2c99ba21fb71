"""The optional compiled search core (``bakers.solver._native``).

``pip install .`` builds it with the system's C compiler when there is one;
without a compiler (or with ``BAKERS_NO_NATIVE=1``) the build is skipped and
bakers runs on its Python engine. ``BAKERS_SANITIZE=1`` builds it with
AddressSanitizer and UndefinedBehaviorSanitizer (the CI's memory check).
"""

import os

from setuptools import Extension, setup

compile_args = ["-O3", "-std=c11", "-Wall", "-Wextra"]
link_args: list[str] = []
if os.environ.get("BAKERS_SANITIZE"):
    flags = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer",
             "-fno-sanitize-recover=undefined"]
    compile_args = ["-O1", "-g", "-std=c11", *flags]
    link_args = flags

ext_modules = []
if not os.environ.get("BAKERS_NO_NATIVE"):
    ext_modules.append(Extension(
        "bakers.solver._native",
        sources=["src/bakers/solver/_native.c"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        optional=True,  # no compiler: install anyway and run on the Python engine
    ))

setup(ext_modules=ext_modules)
