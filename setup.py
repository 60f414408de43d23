"""Build the compiled segmentation walk (``scrapy_declutter._segment``) where a C compiler is.

Everything else is declared in ``setup.cfg``. The extension is ``optional``:
without a compiler the build goes on without it and the package segments in
pure Python (``segment.python_segment``), saying so once in a logged warning.
It is compiled against lxml's public C API (headers from ``lxml.get_include()``,
lxml being a build requirement) and uses no libxml2 symbol, so it keeps
working when lxml is upgraded after install.
"""

from setuptools import Extension, setup


def extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError as exc:  # a build without the build requirements: pure Python
        print(f"scrapy-declutter: not building the compiled walk ({exc})")
        return []
    walk = Extension("scrapy_declutter._segment", ["scrapy_declutter/_segment.pyx"],
                     include_dirs=lxml.get_include(), optional=True)
    return cythonize([walk], compiler_directives={"language_level": 3}, quiet=True)


setup(ext_modules=extensions())
