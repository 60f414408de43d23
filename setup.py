"""Build the compiled segmentation walk (``scrapy_declutter._segment``) where a C compiler is.

Everything else is declared in ``setup.cfg``. The extension is ``optional``:
without a compiler the build goes on without it and the package segments in
pure Python (``segment.python_segment``), saying so once in a logged warning.
It is compiled against lxml's public C API (headers from ``lxml.get_include()``,
lxml being a build requirement) and uses no libxml2 symbol, so it keeps
working when lxml is upgraded after install.
"""

from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError as exc:  # a build without the build requirements: pure Python
        print(f"scrapy-declutter: not building the compiled walk ({exc})")
        return []
    walk = Extension("scrapy_declutter._segment", ["scrapy_declutter/_segment.pyx"],
                     depends=[str(p) for p in Path("scrapy_declutter").glob("_segment_*.pxi")],
                     include_dirs=lxml.get_include(), optional=True)
    return cythonize([walk], compiler_directives={"language_level": 3}, quiet=True)


class OptionalBuildExt(build_ext):
    """Build the compiled walk where this machine can; elsewhere say so and go on without it.

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
            print(f"scrapy-declutter: WARNING: the compiled walk {ext.name} was not built ({exc}); "
                  "the package will segment in pure Python")


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
