"""Build of the compiled core.

Compiler directives are set here once.  ``JAIPUR_AI_DEBUG=1 pip install .``
builds with bounds checks, wrap-around checks and C assertions back on, without
optimisation, so that the test suite can run against a checked build.
"""
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("JAIPUR_AI_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}
# In the debug build the C arrays of the core (fixed-size arrays in the State
# struct, move buffers) are bounds-checked too: an index out of range traps.
# -ffp-contract=off: no multiply and add fused into an FMA where the target has one, so
# that the evaluation's sums round the same whichever of its loops runs (_kernels.h).
compile_args = (["-O1", "-g", "-UNDEBUG", "-fsanitize=bounds", "-fsanitize-undefined-trap-on-error"]
                if DEBUG else ["-O3"]) + ["-ffp-contract=off"]

# The compiled modules (docs/development.md has the map): the rules core, then the
# search split by responsibility, then the environments for learning (observation tensor, vectorised environment, OpenSpiel chance hooks)
MODULES = ("rules._core", "rules._movegen", "rules._dealing", "rules._bridge",
           "rules._observation",
           "search._figures", "search._decisive", "search._heuristic", "search._policy",
           "search._features", "search._rawinputs", "search._movefeatures", "search._evaluation", "search._nodepool", "search._infostats",
           "search._root", "search._ismcts", "search._chance", "search._expectimax", "search._endgame", "search._search",
           "search._rollout",
           "search._belief",
           "learning._selfplay",
           "envs._vecenv", "envs._spiel")

extensions = [
    Extension(
        f"jaipur_ai.{name}",
        [f"src_cy/jaipur_ai/{name.replace('.', '/')}.pyx"],
        # src_cy/jaipur_ai/search for the C loops of _kernels.h
        include_dirs=[np.get_include(), "src_cy/jaipur_ai/search"],
        extra_compile_args=compile_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["src_cy"],
        compiler_directives=directives,
        build_dir="build/cython",
    ),
)
