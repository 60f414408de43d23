"""Build the compiled parts where a C/C++ compiler is; each has a pure-Python reference.

- ``scrapy_declutter._segment``, the segmentation walk: compiled against
  lxml's public C API (headers from ``lxml.get_include()``, lxml being a build
  requirement) and using no libxml2 symbol, so it keeps working when lxml is
  upgraded after install. Without it the package segments in pure Python
  (``segment.python_segment``), saying so once in a logged warning.
- ``scrapy_declutter._treefacts`` counts a tree's elements and finds its title's
  candidates in one walk (over lxml's public C API, as ``_segment``), and in the same
  walk counts the tags and notes the attributes the learned step's page-type facts
  read; without it ``treefacts.python_tree_facts`` asks libxml2's XPath, the same
  facts, and the step scans with ``pagetype.python_tree_scan``, the same scan.
- ``scrapy_declutter._utf8`` encodes a page's text for the parser, copying the ASCII
  runs of text held two or four bytes a character sixteen at a time, and tells a
  body that is valid UTF-8 without decoding it; without it ``page.parse_html``
  takes ``str.encode``, the same bytes, and every body is decoded (``sniff``).
- ``scrapy_declutter._language`` counts the blocks' stop words in one loop
  per page; without it ``language.stopword_counts`` runs per block, the same counts.
- ``scrapy_declutter.nearduplicates._words`` finds and hashes a clean text's words for its
  near-duplicate signature in one pass over its bytes; without it
  ``signature.python_word_hashes`` (NumPy) gives the same hashes.
- ``steps.learned._trees`` walks the tree ensembles and ``steps.learned._chains``
  summarises the blocks' ancestor chains, ``steps.learned._text`` reads the blocks' texts
  character by character and ``steps.learned._columns`` gathers the blocks'
  fields into arrays; without them the learned step runs its references
  (``trees.TreeEnsemble.numpy_leaf_values``, ``features._chains``,
  ``text.python_char_columns``,
  ``columns.python_block_columns``), which give the same values.
- ``scrapy_declutter/_chars.pxd`` holds the character classes ``_language`` and
  ``_text`` share and the UTF-8 writer of ``_utf8``,
  ``scrapy_declutter/_slots.pxd`` the slot offsets ``_segment``,
  ``_columns``, ``_text`` and ``_language`` read and write Blocks' fields at (inline functions compiled into each;
  no module of their own).

Everything else is declared in ``setup.cfg``. The extensions are ``optional``:
without a compiler the build goes on without them.
"""

from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError as exc:  # a build without the build requirements: pure Python
        print(f"scrapy-declutter: not building the compiled parts ({exc})")
        return []
    learned = "scrapy_declutter/steps/learned"
    chars = "scrapy_declutter/_chars.pxd"  # inline character classes, cimported
    slots = "scrapy_declutter/_slots.pxd"  # fields read and written at their slots, cimported
    compiled = [
        Extension("scrapy_declutter._segment", ["scrapy_declutter/_segment.pyx"],
                  depends=[chars, slots, *(str(p) for p in Path("scrapy_declutter").glob("_segment_*.pxi"))],
                  include_dirs=lxml.get_include(), optional=True),
        Extension("scrapy_declutter._treefacts", ["scrapy_declutter/_treefacts.pyx"],
                  include_dirs=lxml.get_include(), optional=True),
        Extension("scrapy_declutter._utf8", ["scrapy_declutter/_utf8.pyx"], depends=[chars],
                  optional=True),
        Extension("scrapy_declutter._language", ["scrapy_declutter/_language.pyx"],
                  depends=[chars, slots], optional=True),
        Extension("scrapy_declutter.sitelearning._fingerprints",
                  ["scrapy_declutter/sitelearning/_fingerprints.pyx"], depends=[chars], optional=True),
        Extension("scrapy_declutter.nearduplicates._words",
                  ["scrapy_declutter/nearduplicates/_words.pyx"], optional=True),
        Extension("scrapy_declutter.steps.learned._trees", [f"{learned}/_trees.pyx"], optional=True),
        Extension("scrapy_declutter.steps.learned._chains", [f"{learned}/_chains.pyx"],
                  language="c++", optional=True),
        Extension("scrapy_declutter.steps.learned._text", [f"{learned}/_text.pyx"],
                  depends=[chars, slots], optional=True),
        Extension("scrapy_declutter.steps.learned._columns", [f"{learned}/_columns.pyx"],
                  depends=[slots], optional=True),
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
