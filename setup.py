"""The compiled parts (plain CPython C API): the log scanner's extractor
(src/kueue_doctor/logs/_fastscan.c) and the block-style YAML decoder (src/kueue_doctor/api/_blockyaml.c).

Everything else is in pyproject.toml. The extensions are optional: where no C compiler (or no
Python headers) is found the build goes on without them, and `kueue-doctor logs` takes its pure
Python path, which gives the same reports (logs/fastpath.py), and YAML is read by the other
decoders (api/yamlfast.py), which give the same objects.
"""
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kueue_doctor.logs._fastscan",
            ["src/kueue_doctor/logs/_fastscan.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "kueue_doctor.api._blockyaml",
            ["src/kueue_doctor/api/_blockyaml.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ]
)
