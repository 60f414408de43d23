"""Build the learned step's compiled parts where a C/C++ compiler is.

``steps.learned._trees`` walks the tree ensembles, ``steps.learned._chains``
summarises the blocks' ancestor chains. Everything else is declared in
``setup.cfg``. The extensions are ``optional``: without a compiler (or
without Cython) the build goes on without them and the learned step runs
its pure-Python references (``trees.TreeEnsemble.numpy_leaf_values``,
``features._chains``), which give the same values.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError as exc:  # a build without the build requirements: pure Python
        print(f"scrapy-declutter: not building the compiled tree walk ({exc})")
        return []
    learned = "scrapy_declutter/steps/learned"
    compiled = [
        Extension("scrapy_declutter.steps.learned._trees", [f"{learned}/_trees.pyx"], optional=True),
        Extension("scrapy_declutter.steps.learned._chains", [f"{learned}/_chains.pyx"],
                  language="c++", optional=True),
    ]
    return cythonize(compiled, compiler_directives={"language_level": 3}, quiet=True)


class OptionalBuildExt(build_ext):
    """Build the extensions this machine can; say which were not and go on without them.

    ``Extension(optional=True)`` alone does not do it: a failing compiler
    surfaces as an error it does not filter (``CalledProcessError``).
    """

    def build_extensions(self) -> None:
        self.failed: set[str] = set()
        super().build_extensions()
        # What was not built is not copied in place nor packed into the wheel.
        self.extensions = [ext for ext in self.extensions if ext.name not in self.failed]

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 - any failure to compile means pure Python
            self.failed.add(ext.name)
            print(f"scrapy-declutter: WARNING: {ext.name} was not built ({exc}); "
                  "the package runs its pure-Python path")


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
