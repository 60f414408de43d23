"""Site models loaded without their n-gram tables when no page's labels read them (issue 15).

A crawl of more sites at once than its working set holds evicts and loads a
site every few pages; without the tables a load decodes and merges a tenth
of the data. The labels and what the store ends up holding must not change.
"""

from __future__ import annotations

import pytest
from test_sitemodel import article

from scrapy_declutter import Declutter
from scrapy_declutter.sitelearning.learner import SiteLearner
from scrapy_declutter.sitelearning.model import SiteModel
from scrapy_declutter.sitelearning.stores import open_store

SITES, PAGES = 12, 4
#: A learner whose unsupervised pages teach the classifier (the default learner's do only
#: where something votes with it): these tests are about the tables that teaching fills.
TRAINS = SiteLearner(train=True)


def _crawl(uri: str, *, scores_text: bool | None = None, **options) -> tuple[Declutter, list]:
    """Pages of SITES sites interleaved, as a broad crawl's scheduler sends them, through a
    working set of one site: every page but a site's first comes from the store."""
    dec = Declutter("density", store=uri, max_cache_bytes=1, flush_every=1, learner=TRAINS,
                    **options)
    if scores_text is not None:
        dec.scores_text = scores_text
    labels = []
    for i in range(PAGES):
        for site in range(SITES):
            result = dec.extract(article(i * SITES + site), f"https://site{site}.example/{i}")
            labels.append([(b.label, b.step, b.text) for b in result.blocks])
    return dec, labels


def test_a_model_read_without_its_tables_keeps_everything_else():
    dec = Declutter("density", store="memory:", learner=TRAINS)
    for i in range(3):
        dec.extract(article(i), f"https://one.example/{i}")
    full = dec.model("one.example")
    lean = SiteModel.from_bytes(full.to_bytes(), ngrams=False)
    assert full.ngrams and not lean.ngrams
    for name in ("pages", "fingerprints", "structures", "containers", "urls", "examples"):
        assert getattr(lean, name) == getattr(full, name)
    assert lean.classifier.examples == full.classifier.examples
    assert all(len(lm) for lm in full.classifier.lms.values())
    assert not any(len(lm) for lm in lean.classifier.lms.values())
    assert lean.estimated_bytes() * 3 < full.estimated_bytes()
    with pytest.raises(ValueError, match="without its n-gram tables"):
        lean.to_bytes()  # stored whole, it would lose the site's tables
    with pytest.raises(ValueError):
        lean.snapshot().to_bytes()


def _learned(model: SiteModel) -> dict:
    """The stored data but the time it was learned at."""
    return {k: v for k, v in model.to_data().items() if k != "updated"}


def test_sites_loaded_without_tables_label_and_store_what_they_did_with_them(tmp_path):
    lean, lean_labels = _crawl(f"sqlite:///{tmp_path}/lean.db")
    full, full_labels = _crawl(f"sqlite:///{tmp_path}/full.db", scores_text=True)
    assert not lean.scores_text
    assert not lean._sites[f"site{SITES - 1}.example"].model.ngrams  # it came from the store
    assert full._sites[f"site{SITES - 1}.example"].model.ngrams
    assert lean_labels == full_labels
    lean.close()
    full.close()
    with open_store(f"sqlite:///{tmp_path}/lean.db") as a, \
            open_store(f"sqlite:///{tmp_path}/full.db") as b:
        assert a.sites() == b.sites()
        for site in a.sites():
            assert _learned(a.load(site)) == _learned(b.load(site))
            assert a.load(site).pages >= 2  # learned from pages after a load too


def test_model_reads_the_tables_of_a_site_loaded_without_them(tmp_path):
    dec, _ = _crawl(f"sqlite:///{tmp_path}/s.db")
    site = f"site{SITES - 1}.example"
    assert not dec._sites[site].model.ngrams
    model = dec.model(site)
    assert model.ngrams and model.pages >= 2
    dec.flush()
    with open_store(f"sqlite:///{tmp_path}/s.db") as store:
        assert store.load(site).to_data() == model.to_data()
    dec.close()


@pytest.mark.parametrize("options", [{"content_selector": "#main"}, {"markers": True}])
def test_a_supervised_crawl_loads_the_tables_its_votes_read(tmp_path, options):
    dec, _ = _crawl(f"sqlite:///{tmp_path}/s.db", **options)
    assert dec.scores_text
    assert all(state.model.ngrams for state in dec._sites.values())
    dec.close()


def test_a_site_some_process_supervised_is_loaded_with_its_tables():
    store = open_store("memory:")
    supervised = SiteModel(site="s.example", pages=3, supervised=3)
    supervised.classifier.train("keep", "the text of an article")
    store.append([supervised], fold={"s.example"})
    dec = Declutter("density", store=store)
    assert not dec.scores_text
    assert dec.model("s.example").ngrams
    assert dec._sites["s.example"].model.ngrams  # loaded whole at once: it votes


def test_a_fresh_site_lets_its_tables_go_once_its_whole_model_is_queued(tmp_path):
    uri = f"sqlite:///{tmp_path}/s.db"
    dec = Declutter("density", store=uri, learner=TRAINS)
    for i in range(3):
        dec.extract(article(i), f"https://fresh.example/{i}")
    state = dec._sites["fresh.example"]
    assert state.model.ngrams  # its whole model is yet to be written
    assert state.model.classifier.estimated_bytes() > 1000  # three pages' lessons
    dec.flush()
    assert not state.model.ngrams and state.model.classifier.estimated_bytes() == 0
    with open_store(uri) as store:
        stored = store.load("fresh.example")
    assert all(len(lm) for lm in stored.classifier.lms.values())
    assert stored.classifier.examples == state.model.classifier.examples
    dec.close()
