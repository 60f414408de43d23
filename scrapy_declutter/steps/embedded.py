"""Make an app shell's embedded text its content.

An app shell (``appshell``) shows no content of its own: what it shows is a
``<noscript>`` notice or a "Loading", so its blocks are boilerplate. When its
data embeds the content (``__NEXT_DATA__``, Nuxt's state, a JSON-LD
``articleBody``), the blocks read from it are added after the page's own and
are its content. The step runs after every extractor (``api.result_of``), so
the chain's steps and site learning see the page as it was served.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..appshell import EMBEDDED_STEP
from ..blocks import BOILERPLATE, CONTENT
from ..page import APP_SHELL_FOUND
from . import Step

if TYPE_CHECKING:
    from ..page import Page


class EmbeddedContent(Step):
    """On an app shell: its own blocks boilerplate, its embedded text's blocks content."""

    name = EMBEDDED_STEP

    def process(self, page: "Page") -> None:
        shell = page.get(APP_SHELL_FOUND)
        if shell is None:
            return
        page.put(APP_SHELL_FOUND, None)  # applied once, whoever asks again
        for b in page.blocks:
            if b.label != BOILERPLATE:
                b.set_label(BOILERPLATE, 0.0, self.name)
        start = len(page.blocks)
        for i, b in enumerate(shell.blocks):
            b.index = start + i
            b.set_label(CONTENT, 1.0, self.name)
            page.blocks.append(b)
