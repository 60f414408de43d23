"""The rules that look at a page whole: a data table kept, teasers and a reply thread left out.

One hand-written page per failure class (``sample_data/failures/README.md``),
each failing with the classifier alone, and pages each rule must leave alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_declutter import COMMENT, extract

DATA = Path(__file__).parent / "sample_data" / "failures"


def page(name: str) -> bytes:
    return (DATA / name).read_bytes()


def test_a_reply_thread_under_a_short_post_is_comments():
    url = "https://riverside-gardening.example/2025/11/weekend-open-thread"
    alone = extract(page("comment-thread.html"), url, extractor="learned+title")
    assert "copper tape" in alone.text  # what the rule fixes: the replies kept as text
    result = extract(page("comment-thread.html"), url)
    assert "copper tape" not in result.text and "November 3, 2025 at" not in result.text
    assert "The last leeks are still standing" in result.text
    assert "tell us what you are harvesting" in result.text
    replies = [b for b in result.blocks if b.text.startswith("Slugs ate every single lettuce")]
    assert replies and all(b.label == COMMENT and b.step == "thread" for b in replies)
    assert len(result.text.split()) < 120


def forum(first_post_like_replies: bool) -> str:
    """A thread whose first post is one of the units, or (False) a post above the units."""
    reply = ('<div class="reply"><div class="reply-meta">{who} March {day}, 2026 at 9:{day:02d}</div>'
             '<div class="reply-text"><p>{text}</p></div></div>')
    text = ("I have tried sharpening my chisels on a cheap stone and the edge never lasts more "
            "than an hour of paring; what stone do you use for a lasting edge?")
    posts = "".join(reply.format(who=f"user{i}", day=i + 1, text=text) for i in range(8))
    head = "<h1>Which sharpening stone?</h1>"
    if first_post_like_replies:
        main = f"{head}<div class='thread'>{posts}</div>"
    else:
        main = (f"<div class='entry'>{head}<p>{text} Thanks in advance for any advice you have.</p>"
                f"</div><div class='replies'>{posts}</div>")
    return (f"<html><head><title>Which sharpening stone? | Woodwork Forum</title></head><body>"
            f"<main>{main}</main></body></html>")


def test_the_thread_rule_leaves_a_forums_posts_alone():
    from scrapy_declutter import Page
    from scrapy_declutter.blocks import CONTENT
    from scrapy_declutter.steps.thread import CommentThread, reply_units

    for first_is_unit, comments in ((True, 0), (False, 16)):
        p = Page.from_html(forum(first_is_unit), "https://woodwork.example/t/1")
        assert len(reply_units(p.blocks)) == 8
        for b in p.blocks:
            b.set_label(CONTENT, 0.9, "test")
        CommentThread().process(p)
        # Each unit's header and text: none on a forum, all of them under a post.
        assert sum(b.label == COMMENT for b in p.blocks) == comments


def test_a_headline_river_around_an_article_goes():
    url = "https://rideau-courier.example/news/2026/03/04/station"
    alone = extract(page("headline-river.html"), url, extractor="learned+title")
    assert "KAMLOOPS:" in alone.text  # what the rule fixes
    result = extract(page("headline-river.html"), url)
    for city in ("HALIFAX", "KAMLOOPS", "OTTAWA", "TORONTO", "NANAIMO", "EDMONTON", "YARMOUTH"):
        assert f"{city}:" not in result.text
    assert "Wildfire forces evacuation" not in result.text
    assert "SMITHS FALLS: The town council voted" in result.text  # the article's own dateline
    assert "Work on the roof is due to start in June." in result.text


@pytest.mark.parametrize(("summary", "teaser"), [
    ("OTTAWA: The bank kept its key rate unchanged", True),
    ("THUNDER BAY (AP) — The main highway stayed closed", True),
    ("ZAGREB, Croatia (AP) — Fireworks lit the sky", True),
    ("The bank kept its key rate unchanged", False),
    ("NOTE this is a sentence", False),
])
def test_dateline(summary, teaser):
    from scrapy_declutter.steps.teasers import DATELINE

    assert bool(DATELINE.match(summary)) is teaser


def test_a_standings_table_that_is_the_content_stays():
    url = "https://county-league.example/division-one/standings"
    alone = extract(page("standings-table.html"), url, extractor="learned+title")
    assert "Queensbury Rovers" not in alone.text  # what the rule fixes
    result = extract(page("standings-table.html"), url)
    assert "The table after the matches of Saturday 21 February." in result.text
    for team in ("Queensbury Rovers", "Ivybridge Park", "Stonebridge FC", "Pts"):
        assert team in result.text
    assert "| Pos | Team | P | W | D | L | GF | GA | GD | Pts |" in result.markdown


def test_a_layout_or_link_table_is_no_data_grid():
    from scrapy_declutter import Page
    from scrapy_declutter.steps.datatable import is_data_grid

    links = "".join(f"<tr>{''.join(f'<td><a href=/{r}{c}>Section {r}{c}</a></td>' for c in range(4))}</tr>"
                    for r in range(6))
    prose = "".join(f"<tr><td>Row {r} holds a long sentence of prose about the garden and its beds.</td>"
                    f"<td>{r}</td><td>more words here</td></tr>" for r in range(6))
    days = "<tr>" + "".join(f"<th>{d}</th>" for d in "Sun Mon Tue Wed Thu Fri Sat".split()) + "</tr>"
    calendar = days + "".join("<tr>" + "".join(f"<td>{7 * w + d + 1}</td>" for d in range(7)) + "</tr>"
                              for w in range(4))
    for table in (links, prose, calendar):
        blocks = Page.from_html(f"<table>{table}</table>").blocks
        assert not is_data_grid(blocks)


def test_the_rules_lab_scores_each_chain_from_one_model_run(tiny_dataset, capsys):
    """``lab.rules`` gives a chain the scores ``evaluate`` gives it (the same chain, run whole)."""
    from scrapy_declutter.lab.dataset import load_dataset
    from scrapy_declutter.lab.metric import word_prf
    from scrapy_declutter.lab.rules import CHAINS, main, score_chains

    samples = load_dataset(tiny_dataset)
    rows = score_chains(samples, {"on": "title(in_text=true)", "default": CHAINS["default"]})
    for sample, row in zip(samples, rows):
        for name, spec in (("on", "learned+title(in_text=true)"), ("default", "default")):
            s = word_prf(extract(sample.html_bytes(), sample.url, extractor=spec).text,
                         sample.main_content)
            assert row.scores[name] == (s.precision, s.recall, s.f1)
    assert main([str(tiny_dataset)]) == 0
    assert "title-in-text" in capsys.readouterr().out


def signed(replies: int, titled_posts: bool = False) -> str:
    """An article, then ``replies`` readers' views each closed by its signature, as a 2008 news
    site printed them in the article's own element (the shape of L3S-GN1's telegraph.co.uk
    pages; invented text); or (``titled_posts``) a blog's front page of signed, titled posts."""
    said = ("Newcastle should give the next manager three seasons before judging him, because "
            "changing every year has cost the club more than any transfer.")
    sign = "Posted by reader{i} on January 10, 2008 {h}:15 PM Report this comment"
    if titled_posts:
        body = "".join(f"<h2>Week {i} in the garden</h2><p>{said} Posted by Jane at {i}:15 PM</p>"
                       for i in range(1, replies + 1))
    else:
        article = "".join(f"<p>{said} The board met on Thursday, paragraph {i}.</p>" for i in range(4))
        views = "".join(f"<p>{said}</p><p>Agreed with the last one. {sign.format(i=i, h=i % 12 + 1)}</p>"
                        for i in range(replies))
        body = f"<h1>Redknapp stays put</h1>{article}<h2>Your view</h2>{views}"
    return f"<html><head><title>Sport</title></head><body><div class='story'>{body}</div></body></html>"


@pytest.mark.parametrize("replies, titled_posts, comments", [(6, False, 12), (4, False, 0),
                                                             (6, True, 0)])
def test_replies_closed_by_signatures_are_comments(replies, titled_posts, comments):
    from scrapy_declutter import Page
    from scrapy_declutter.blocks import CONTENT
    from scrapy_declutter.steps.thread import CommentThread

    p = Page.from_html(signed(replies, titled_posts), "https://news.example/sport/1")
    for b in p.blocks:
        b.set_label(CONTENT, 0.9, "test")
    CommentThread().process(p)
    labelled = [b for b in p.blocks if b.label == COMMENT]
    assert len(labelled) == comments  # both blocks of each view; none of 4, none of titled posts
    assert all(not b.text.startswith("Newcastle") or "paragraph" not in b.text for b in labelled)
    if comments:
        assert labelled[0].index == next(b.index for b in p.blocks if b.text == "Your view") + 1
