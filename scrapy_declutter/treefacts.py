"""What a Page reads from its whole tree before segmenting it: the element count
(``limits``' cap) and the title's candidates (``<head><title>``, any ``<title>``,
``og:title``); and, in the same walk, the scan a step configured (``configure_scan``:
the learned step's page-type tags and marked elements).

Asked of libxml2's XPath (``count(//*)``, ``//head/title`` ...) each is a pass
that gathers every node of the document first: two of them cost as much as
segmenting the page. The compiled ``_treefacts`` finds them all in one walk,
without the GIL, where the package was built with a compiler; elsewhere (and
inside ``segment.reference_walk()``), or on a tree it leaves to the reference,
``python_tree_facts`` asks the XPaths. The two give the same facts.

The scan rides on the compiled walk because it reads every element too: made
right after the parse, it finds the nodes in the caches, where a walk of its
own in the learned step, after segmentation and the features, waited on
memory for most of its time. Its reference (``pagetype.python_tree_scan``) is
the step's: here the XPath facts come without a scan, and the step scans.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import NamedTuple

from lxml import etree

from .segment import in_reference_walk

try:  # by name, as ``segment`` loads ``_segment``: the import graph sees only .py modules
    _compiled: ModuleType | None = import_module(f"{__package__}._treefacts")
except ImportError:  # built without a compiler: the XPaths below
    _compiled = None


class TreeFacts(NamedTuple):
    """The facts of a parsed tree that a Page reads before segmenting it."""

    #: Elements in the document (``count(//*)``), every top-level element's included.
    elements: int
    #: The first ``<title>`` child of a ``<head>`` (``//head/title``), or None.
    head_title: etree._Element | None
    #: The first ``<title>`` anywhere (``//title``), or None.
    title: etree._Element | None
    #: The ``content`` of the first ``<meta property="og:title">`` that has one, or None.
    og_title: str | None
    #: The configured scan of the root's subtree, as ``scanned`` gives it; None when no
    #: scan is configured, the facts are the XPaths' or the scan is left to the reference.
    scan: tuple | None = None
    #: The most children (``len``) of one element of the root's tree, for ``limits``'
    #: widest-parent cap; None from the XPaths (the cap then counts them itself).
    widest: int | None = None


_COUNT = etree.XPath("count(//*)")
_HEAD_TITLE = etree.XPath("//head/title")
_TITLE = etree.XPath("//title")
_OG_TITLE = etree.XPath("//meta[@property='og:title']/@content")


def tree_facts(root: etree._Element) -> TreeFacts:
    """The ``TreeFacts`` of the document ``root`` belongs to."""
    if _compiled is not None and not in_reference_walk():
        found = _compiled.facts(root)
        if found is not None:
            return TreeFacts(*found)
    return python_tree_facts(root)


def configure_scan(counted: tuple[str, ...], kept: tuple[str, ...]) -> None:
    """Have the compiled walk scan the tree for a step: count the ``counted`` tags (in
    order), keep the elements of the ``kept`` ones and of those with a ``role``, an
    ``itemprop`` or an ``itemtype`` (``pagetype.TreeScan`` reads them). Without a
    compiler, nothing: the step scans with its reference."""
    if _compiled is not None:
        _compiled.configure_scan(counted, kept)


def scanned(root: etree._Element) -> tuple | None:
    """(counts of the counted tags, kept elements, marked elements, itemtype values) of
    ``root``'s subtree by the compiled walk alone, for a tree ``tree_facts`` did not scan;
    None where it is not built, inside ``segment.reference_walk()``, or for a tree it
    leaves to the reference."""
    if _compiled is None or in_reference_walk():
        return None
    return _compiled.scan(root)


def python_tree_facts(root: etree._Element) -> TreeFacts:
    """``tree_facts`` through libxml2's XPath: the reference of the compiled walk."""
    def first(found: list) -> object:
        return found[0] if found else None

    og = first(_OG_TITLE(root))
    return TreeFacts(int(_COUNT(root)), first(_HEAD_TITLE(root)), first(_TITLE(root)),
                     None if og is None else str(og))
