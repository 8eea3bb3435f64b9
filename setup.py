"""The log scanner's compiled extractor (src/kueue_doctor/logs/_fastscan.c, plain CPython C API).

Everything else is in pyproject.toml. The extension is optional: where no C compiler (or no
Python headers) is found the build goes on without it, and `kueue-doctor logs` takes its pure
Python path, which gives the same reports (logs/fastpath.py).
"""
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kueue_doctor.logs._fastscan",
            ["src/kueue_doctor/logs/_fastscan.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
