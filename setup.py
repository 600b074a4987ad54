"""Build the optional compiled search core ``xaip._core`` (C, CPython API, MIT).

Why a setup.py next to pyproject.toml: setuptools reads the project metadata from
pyproject.toml and only the C extension from here. The extension is ``optional``: when no C
compiler is present, ``pip install -e .`` and ``pip wheel .`` still succeed and xaip falls
back to its pure-Python engine (``xaip.planning.engines.compiled.core_available()``).
In an editable install the module lands next to the sources (src/xaip/_core.*.so, ignored by
git); after editing the C sources, run ``pip install -e .`` again to rebuild it.
"""

from setuptools import Extension, setup

SOURCES = ["module.c", "task.c", "relax.c", "lmcut.c", "certify.c", "search.c"]

setup(
    ext_modules=[
        Extension(
            "xaip._core",
            sources=[f"src/xaip/_native/{name}" for name in SOURCES],
            depends=["src/xaip/_native/core.h"],
            extra_compile_args=["-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
            optional=True,
        )
    ],
)
