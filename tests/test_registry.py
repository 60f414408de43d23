"""The extractor registry and the exception family: names, parameters, errors."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import scrapy_declutter
from scrapy_declutter import errors
from scrapy_declutter.errors import DeclutterError, UnknownExtractorError
from scrapy_declutter.registry import build_extractor, extractors


def test_a_misspelt_parameter_names_the_valid_ones():
    with pytest.raises(UnknownExtractorError) as caught:
        build_extractor("tree(dept=1)")
    message = str(caught.value)
    assert "'dept'" in message and "depth, skip_wrappers" in message
    assert not isinstance(caught.value, TypeError)


@pytest.mark.parametrize("spec,valid", [
    ("density(min_char=10)", "min_chars, base"),  # a one-step part: the Step class's parameters
    ("boilerpipe-default(x=1)", "none"),
    ("boilerpipe-article+ngram(examples=2)", "min_examples"),  # the part that is wrong is named
])
def test_every_kind_of_factory_checks_its_parameters(spec, valid):
    with pytest.raises(UnknownExtractorError, match=f"its parameters: {valid}$"):
        build_extractor(spec)


def test_right_parameters_still_build():
    (step,) = build_extractor("density(min_chars=10, base=0.4)").steps
    assert (step.min_chars, step.base) == (10, 0.4)
    assert build_extractor("ngram(min_examples=3)").steps[0].min_examples == 3


def test_the_extractors_function_does_not_hide_a_module():
    assert scrapy_declutter.extractors is extractors and callable(extractors)
    registry = importlib.import_module("scrapy_declutter.registry")
    assert inspect.ismodule(registry) and registry.build_extractor is build_extractor
    assert "density+ngram" not in extractors() and "ngram" in extractors()


def test_every_exception_is_one_family_and_exported():
    found = [obj for obj in vars(errors).values()
             if inspect.isclass(obj) and issubclass(obj, BaseException)]
    assert len(found) >= 7
    for cls in found:
        assert issubclass(cls, DeclutterError), cls
        assert getattr(scrapy_declutter, cls.__name__) is cls, cls  # public from the package
    assert issubclass(errors.SettingsError, ValueError)
    assert issubclass(errors.UnknownExtractorError, KeyError)
    assert issubclass(errors.ModelVersionError, errors.ModelFormatError)


def test_no_module_but_errors_defines_an_exception():
    """Exceptions live in ``errors``, the lab's included."""
    package = Path(scrapy_declutter.__file__).parent
    strays = []
    for path in package.rglob("*.py"):
        name = path.relative_to(package).as_posix()
        if name == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    ast.unparse(base).endswith(("Error", "Exception")) for base in node.bases):
                strays.append(f"{name}:{node.name}")
    assert strays == []
