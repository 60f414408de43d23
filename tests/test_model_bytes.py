"""The stored form of a site model (``modelbytes``, format version 3): tables as raw arrays,
malformed blobs and models of other versions refused."""

from __future__ import annotations

import json
import random
import zlib

import numpy as np
import pytest

from scrapy_declutter.errors import ModelFormatError, ModelVersionError
from scrapy_declutter.sitelearning.model import MAX_FINGERPRINTS, SiteModel, _capped
from scrapy_declutter.sitelearning.modelbytes import MAGIC, narrowest, pack, unpack
from scrapy_declutter.sitelearning.ngram import DISCARD, KEEP


def _model() -> SiteModel:
    model = SiteModel("a.example", pages=3, supervised=1, containers={"/html/body/div#main": 3},
                      examples={7: "Posted by <name> @ /html/body/p"})
    model.observe([5, 2**63 - 1, 0, 5], "https://a.example/1", [7, 0, 9], ["/html/body/div#main"])
    model.fingerprints[11] = 300  # a count past one byte: its array gets a wider type
    for i in range(30):
        model.classifier.train(KEEP, f"The library budget was cut again, year {i}. Ελληνικά")
        model.classifier.train(DISCARD, "Home | News | Contact | Privacy")
    return model


def test_a_model_reads_back_as_it_was_written_in_the_same_order():
    model = _model()
    blob = model.to_bytes()
    assert blob.startswith(MAGIC)
    again = SiteModel.from_bytes(blob)
    assert again.to_bytes() == blob
    assert (again.fingerprints, again.structures, again.containers, again.examples) == (
        model.fingerprints, model.structures, model.containers, model.examples)
    assert list(again.fingerprints) == list(model.fingerprints)  # order: newest survive caps
    assert list(again.urls) == list(model.urls)
    for c in (KEEP, DISCARD):
        assert np.array_equal(again.classifier.lms[c]._keys, model.classifier.lms[c]._keys)
        assert again.classifier.lms[c]._keys.dtype == np.uint64
        assert again.classifier.lms[c]._counts.dtype == np.int64
    text = "The library budget was cut again"
    assert again.classifier.classify(text) == model.classifier.classify(text)


def test_a_model_of_an_older_format_is_refused_as_malformed():
    model = _model()
    header, arrays = unpack(model.to_bytes(), 1 << 20)
    with pytest.raises(ModelFormatError):
        SiteModel.from_bytes(pack({**header, "version": 2}, arrays))
    with pytest.raises(ModelFormatError):  # formats 1-2 were compressed JSON
        SiteModel.from_bytes(zlib.compress(json.dumps({"format": header["format"]}).encode()))


def test_counts_take_the_narrowest_type_that_holds_them():
    assert narrowest(np.array([0, 255])).dtype.str == "|u1"
    assert narrowest(np.array([256])).dtype.str == "<u2"
    assert narrowest(np.array([2**16])).dtype.str == "<u4"
    assert narrowest(np.array([2**40])).dtype.str == "<u8"
    assert narrowest(np.array([], dtype=np.int64)).dtype.str == "|u1"


def test_malformed_stored_forms_are_refused():
    blob = _model().to_bytes()
    head = int.from_bytes(blob[4:8], "little")
    bad = [blob[:-1], blob + b"\x00", blob[:6], MAGIC + (10**6).to_bytes(4, "little") + blob[8:],
           blob[:8] + b"\x00" * head + blob[8 + head:],
           pack({"format": "x"}, {"a": np.zeros(2, dtype="<u8")})[:-3]]
    for b in bad:
        with pytest.raises(ModelFormatError):
            SiteModel.from_bytes(b)
    with pytest.raises(ValueError):  # only integer arrays of the listed types are written
        pack({}, {"a": np.zeros(2, dtype=np.float64)})
    header, _ = unpack(blob, 1 << 20)
    header["arrays"] = [["x", "O", 1]]  # an object array may not be named in a header
    head = zlib.compress(json.dumps(header).encode())
    with pytest.raises(ModelFormatError):
        SiteModel.from_bytes(MAGIC + len(head).to_bytes(4, "little") + head + b"\x00" * 8)


def test_a_newer_stored_form_is_refused_as_newer():
    model = _model()
    header, arrays = unpack(model.to_bytes(), 1 << 20)
    with pytest.raises(ModelVersionError):
        SiteModel.from_bytes(pack({**header, "version": 99}, arrays))


def test_a_full_table_keeps_the_most_frequent_keys_the_newest_among_equals_in_order():
    rng = random.Random(7)
    for top in (1, 3, 40):  # all keys tied; a few counts; many
        counts = {rng.getrandbits(63): rng.randint(1, top) for _ in range(MAX_FINGERPRINTS * 5 // 4 + 50)}
        # The specification: rank by (count, age), newest first among equals; keep the order.
        ranked = sorted(enumerate(counts.items()), key=lambda item: (item[1][1], item[0]), reverse=True)
        expected = {key: n for _, (key, n) in sorted(ranked[:MAX_FINGERPRINTS])}
        kept = _capped(dict(counts))
        assert len(kept) == MAX_FINGERPRINTS
        assert list(kept.items()) == list(expected.items())
