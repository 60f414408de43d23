"""Markdown output against hand-written expectations, on real pages and real snippets.

The Python documentation pages come from ``example_project/site``; the table
snippets from WCXB pages (``sample_data/formats/README.md``). Renderer tests
label every block content, so they test the rendering, not the classifier.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from conftest import SAMPLE_DATA

from scrapy_declutter import Page, extract
from scrapy_declutter.formats.markdown import escape, render_markdown
from scrapy_declutter.page import parse_html

DOCS = Path(__file__).resolve().parents[1] / "example_project" / "site" / "docs.python.org" / "3.11"
FORMATS = SAMPLE_DATA / "formats"


def markdown_of(html: str, **options) -> str:
    page = Page.from_html(html)
    for b in page.blocks:
        b.set_label("content", 1.0, "test")
    return render_markdown(page.blocks, **options)


def fragment(path: Path, xpath: str) -> str:
    root = parse_html(path.read_text(encoding="utf-8"))
    return etree.tostring(root.xpath(xpath)[0], encoding="unicode")


def test_python_docs_page_keeps_headings_levels_and_code_with_its_newlines():
    url = "https://docs.python.org/3.11/tutorial/datastructures.html"
    md = extract((DOCS / "tutorial" / "datastructures.html").read_bytes(), url).markdown
    assert md.startswith("# 5. Data Structures\n\nThis chapter describes some things")
    assert "\n## 5.1. More on Lists\n" in md
    assert (
        "### 5.1.1. Using Lists as Stacks\n\n"
        "The list methods make it very easy to use a list as a stack"
    ) in md
    assert (
        "For example:\n\n"
        "```python3\n"
        ">>> stack = [3, 4, 5]\n"
        ">>> stack.append(6)\n"
        ">>> stack.append(7)\n"
        ">>> stack\n"
        "[3, 4, 5, 6, 7]\n"
        ">>> stack.pop()\n"
        "7\n"
        ">>> stack\n"
        "[3, 4, 5, 6]\n"
        ">>> stack.pop()\n"
        "6\n"
        ">>> stack.pop()\n"
        "5\n"
        ">>> stack\n"
        "[3, 4]\n"
        "```\n\n"
        "### 5.1.2. Using Lists as Queues\n"
    ) in md
    assert "¶" not in md


def test_nested_list_of_the_faq_contents():
    md = markdown_of(fragment(DOCS / "faq" / "programming.html", "//nav[@id='contents']"))
    assert md.startswith(
        "Contents\n\n"
        "- Programming FAQ\n"
        "    - General Questions\n"
        "        - Is there a source code level debugger with breakpoints, single-stepping, etc.?\n"
        "        - Are there tools to help find bugs or perform static analysis?\n"
        "        - How can I create a stand-alone binary from a Python script?\n"
        "        - Are there coding standards or a style guide for Python programs?\n"
        "    - Core Language\n"
        "        - Why am I getting an UnboundLocalError when the variable has a value?\n"
    )


def test_ordered_list_item_holding_code():
    md = markdown_of(fragment(DOCS / "faq" / "library.html", "//ol"))
    assert md == (
        "1. modules written in Python (.py);\n"
        "2. modules written in C and dynamically loaded (.dll, .pyd, .so, .sl, etc);\n"
        "3. modules written in C and linked with the interpreter; to get a list of these, type:\n"
        "\n"
        "    ```python3\n"
        "    import sys\n"
        "    print(sys.builtin_module_names)\n"
        "    ```\n"
    )


def test_ordered_list_start_is_kept():
    assert markdown_of("<ol start='7'><li>seven</li><li>eight</li></ol>") == "7. seven\n8. eight\n"


def test_block_quote_keeps_its_paragraphs_in_one_quote():
    md = markdown_of(fragment(DOCS / "faq" / "general.html", "//blockquote"))
    assert md.startswith(
        "> I had extensive experience with implementing an interpreted language in the ABC "
        "group at CWI, and from working with this group I had learned a lot about language "
        "design."
    )
    paragraphs = md.rstrip("\n").split("\n>\n")
    assert len(paragraphs) == 6
    assert all(p.startswith("> ") for p in paragraphs)
    assert paragraphs[1].startswith("> I had a number of gripes about the ABC language")


def test_plain_table_becomes_a_github_table_and_a_spanning_one_text_rows():
    md = markdown_of((FORMATS / "postgres-navigation.html").read_text(encoding="utf-8"))
    assert md == (
        "Chapter 11. Indexes\n\n"
        "Prev | Up | Part II. The SQL Language | Home | Next\n\n"
        "| Prev | Up | Next |\n"
        "| --- | --- | --- |\n"
        "| 10.6. SELECT Output Columns | Home | 11.1. Introduction |\n"
    )


def test_table_whose_cells_hold_lists_degrades_to_its_blocks():
    md = markdown_of((FORMATS / "cs224-schedule.html").read_text(encoding="utf-8"), links=True,
                     base_url="https://www.sitanchen.com/cs224/f23/index.html")
    assert md.startswith(
        "Date | Topic | Lecture Notes | Resources\n\n"
        "Sep 6\n\n"
        "Logistics, vignette: diffraction limit and learning theory\n\n"
        "[instructor notes](https://www.sitanchen.com/cs224/f23/notes/lec1_intro.pdf), "
        "[slides](https://www.sitanchen.com/cs224/f23/slides/lec1_intro.pptx)\n\n"
        "- Airy disks and mixture models: [[Chen-Moitra '20]](https://arxiv.org/abs/2004.07659) "
        "(lecture covered Sections 4.1 and 4.2)\n"
        "- Learning mixtures of exponentials: "
    )


def test_cell_pipes_are_escaped_and_header_cells_lead():
    md = markdown_of("<table><tr><th>a|b</th><th>c</th></tr><tr><td>1</td><td>2</td></tr></table>")
    assert md == "| a\\|b | c |\n| --- | --- |\n| 1 | 2 |\n"


def test_links_and_images_only_when_asked():
    html = "<p>See <a href='/doc'>the docs</a> now.</p><figure><img src='a.png' alt='A'><figcaption>Cap</figcaption></figure>"
    assert markdown_of(html) == "See the docs now.\n\nCap\n"
    assert markdown_of(html, links=True, images=True, base_url="https://x.org/p/") == (
        "See [the docs](https://x.org/doc) now.\n\n![A](https://x.org/p/a.png)\nCap\n")


def test_only_content_blocks_are_rendered():
    page = Page.from_html("<h2>Kept</h2><p>dropped</p><p>kept too</p>")
    for b in page.blocks:
        b.set_label("boilerplate" if b.text == "dropped" else "content", 1.0, "test")
    assert render_markdown(page.blocks) == "## Kept\n\nkept too\n"


def test_text_that_looks_like_markdown_is_escaped():
    assert escape("# not a heading", line_start=True) == "\\# not a heading"
    assert escape("1. not a list", line_start=True) == "1\\. not a list"
    assert escape("2 * 3 and _x_ and snake_case and <div>") == "2 \\* 3 and \\_x\\_ and snake_case and \\<div>"
    assert markdown_of("<p>- dash</p>") == "\\- dash\n"


def test_a_fence_outlasts_backquotes_in_the_code():
    md = markdown_of("<pre>a ``` b</pre>")
    assert md == "````\na ``` b\n````\n"
