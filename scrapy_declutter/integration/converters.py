"""Converters: a raw option value in, the typed value out, or a message saying what is accepted.

One per kind of option, shared by the settings, the spider arguments and a
request's ``meta["declutter"]`` (see ``settings``). A raw value is a string
from the command line (``-s DECLUTTER_THREADS=false``) or a Python value from
``settings.py`` or meta; each converter takes both. A bad value raises
ValueError whose message completes "DECLUTTER_X=<value> ...".
"""

from __future__ import annotations

import difflib
import os
from functools import lru_cache
from typing import Any

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_NULLS = {"", "none", "null"}


def boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError("is not a boolean; use True or False (also 1/0, yes/no, on/off)")


def optional_text(value: Any) -> str | None:
    """A field name, path or key; ``None``, ``""`` and ``"none"`` all mean "off"."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(  # noqa: TRY004 - every converter signals a bad value the same way
            f"is a {type(value).__name__}, not a string; use a name or None")
    value = value.strip()
    return None if value.lower() in _NULLS else value


def size(value: Any) -> int:
    return _whole_number(value, "is not a size; use a whole number of bytes, 0 or more")


def count(value: Any) -> int:
    return _whole_number(value, "is not a count; use a whole number, 0 or more")


def processes(value: Any) -> int:
    """A number of worker processes; ``"auto"``: one when the machine has a second core.

    Resolved here, when the settings are read, so the rest of the crawl sees
    one number.
    """
    if isinstance(value, str) and value.strip().lower() == "auto":
        return 1 if usable_cores() >= 2 else 0
    return _whole_number(value, 'is not a number of processes; use a whole number, 0 or more, '
                                'or "auto"')


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the OS has one (a
    container or ``taskset`` limits it; ``os.cpu_count()`` counts the whole machine)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _whole_number(value: Any, refusal: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if isinstance(value, bool) or number < 0:
        raise ValueError(refusal)
    return number


def rate(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = -1.0
    if isinstance(value, bool) or not 0.0 <= number <= 1.0:
        raise ValueError("is not a rate; use a number from 0 to 1")
    return number


def duplicate_field(value: Any) -> str | None:
    """An item field for near-duplicates; naming one needs datasketch, checked here, at start."""
    name = optional_text(value)
    if name is not None:
        from ..nearduplicates import datasketch_missing

        missing = datasketch_missing()
        if missing:
            raise ValueError(missing)
    return name


def similarity_threshold(value: Any) -> float:
    """An estimated Jaccard similarity from which a page is a near-duplicate."""
    from ..nearduplicates import MIN_THRESHOLD

    try:
        number = -1.0 if isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        number = -1.0
    if not MIN_THRESHOLD <= number <= 1.0:
        raise ValueError(f"is not a similarity threshold; use a number from {MIN_THRESHOLD} to 1")
    return number


def extractor_name(value: Any) -> str:
    """An extractor spec (``density``, ``boilerpipe-article+tree(depth=1)``) that builds and runs."""
    spec = optional_text(value) or "default"
    runnable_extractor(spec)
    return spec


#: A page every extractor must get through; it has a language, so stop lists load too.
_SAMPLE_PAGE = (
    '<html lang="en"><head><title>Check</title></head><body><nav><a href="/">Home</a></nav>'
    "<p>The allotment committee met on Tuesday to agree the planting plan for the spring "
    "season, after a long discussion of crop rotation and of the tools the members share.</p>"
    "</body></html>"
)


@lru_cache(maxsize=64)
def runnable_extractor(spec: str) -> None:
    """Build the chain a spec names and run it on a small page, once per spec.

    Running it is what catches a broken install: a step module or a dependency
    (stop lists, a model file) that fails to import or load would otherwise
    fail on every page and leave every item with empty text.
    """
    from ..errors import UnknownExtractorError
    from ..page import Page
    from ..registry import build_extractor

    try:
        chain = build_extractor(spec)
    except UnknownExtractorError as e:
        raise ValueError(f"is not an extractor: {e}; parts join with '+', "
                         "e.g. boilerpipe-article+tree") from None
    except ImportError as e:
        raise ValueError(f"cannot be loaded: {_import_fix(e)}") from None
    except (TypeError, ValueError) as e:  # a parameter value the step refuses
        raise ValueError(f"is not a valid extractor: {e}") from None
    try:
        chain.run(Page.from_html(_SAMPLE_PAGE, "https://example.com/check"))
    except ImportError as e:
        raise ValueError(f"cannot run: {_import_fix(e)}") from None
    except Exception as e:  # noqa: BLE001 - any failure here would recur on every page
        raise ValueError(f"fails on a sample page: {type(e).__name__}: {e}") from None


def _import_fix(error: ImportError) -> str:
    """What failed to import, and how to repair the install."""
    return (f"{type(error).__name__}: {error}; install the missing package, or reinstall "
            "with its dependencies: pip install --upgrade --force-reinstall scrapy-declutter")


def site_key(value: Any) -> str:
    """``host``, ``domain``, ``fixed:NAME`` or the import path of a callable (``sitekey``)."""
    from ..sitekey import HOST, site_key_function

    spec = optional_text(value) or HOST
    site_key_function(spec)
    return spec


def css_or_xpath(value: Any) -> str | None:
    """A content selector that compiles; XPath when it starts with ``/``, ``(`` or ``./``."""
    selector = optional_text(value)
    if selector is None:
        return None
    from lxml import etree

    from ..sitelearning.supervision import selector_xpath

    try:
        etree.XPath(selector_xpath(selector))
    except Exception as e:  # noqa: BLE001 - cssselect and lxml raise several kinds
        raise ValueError(f"is not a CSS or XPath selector: {e}") from None
    return selector


#: ``DECLUTTER_FORMAT`` values (``settings.FORMATS`` says which fields each fills).
OUTPUT_FORMATS = ("text", "markdown", "both")


def output_format(value: Any) -> str:
    """``text``, ``markdown`` or ``both`` (any case)."""
    text = str(value).strip().lower()
    if text not in OUTPUT_FORMATS:
        raise ValueError(f"is not an output format; use one of {', '.join(OUTPUT_FORMATS)}")
    return text


def metadata_names() -> tuple[str, ...]:
    """Names a metadata field may take: the ``Metadata`` attributes, and ``author``
    (the authors joined into one string, for feeds that want a single cell)."""
    import dataclasses

    from ..metadata import Metadata

    return (*(f.name for f in dataclasses.fields(Metadata)), "author")


def metadata_fields(value: Any) -> tuple[tuple[str, str], ...]:
    """(Metadata attribute, item field) pairs.

    A list (or a comma-separated string, as ``-s`` gives) names the attributes,
    each written to the item field of the same name; a dict maps attribute to
    item field, for a spider whose own ``title`` or ``language`` is taken.
    Checked against ``Metadata``: a typo fails the crawl at start, with the
    valid names, rather than leaving a column empty on every row.
    """
    if value is None or (isinstance(value, str) and value.strip().lower() in _NULLS):
        return ()
    if isinstance(value, str):
        value = [part for part in value.replace(" ", ",").split(",") if part]
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, (list, tuple)):
        pairs = [(v, v) for v in value]
    else:
        raise ValueError(f"is a {type(value).__name__}; use a list of metadata names "
                         "or a dict of name -> item field")
    valid = metadata_names()
    unknown = [str(attr) for attr, _ in pairs if attr not in valid]
    if unknown:
        close = difflib.get_close_matches(unknown[0], valid, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ValueError(f"names unknown metadata: {', '.join(unknown)}{hint}; "
                         f"valid: {', '.join(valid)}")
    fields = []
    for attr, name in pairs:
        field_name = optional_text(name)
        if field_name is None:
            raise ValueError(f"maps {attr!r} to no item field; leave it out instead")
        fields.append((attr, field_name))
    return tuple(fields)
