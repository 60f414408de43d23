"""The response a callback receives: the analysed one, carrying its Result.

The downloader middleware awaits the analysis and returns the response as a
``DeclutteredResponse``: a subclass of the response's own class (an
``HtmlResponse`` stays an ``HtmlResponse``), made with ``response.replace``
as Scrapy's own middlewares make new responses, so ``response.declutter``
is the page's Result and ``response.replace()`` keeps it. The spider
middleware writes the item fields from the same response.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.http import Response

    from ..result import Result
    from .output import PageOutput


class DeclutteredResponse:
    """Mixin of every response the plugin analysed; ``isinstance`` tells such a response."""

    declutter_output: PageOutput | None

    def __init__(self, *args: Any, declutter_output: PageOutput | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.declutter_output = declutter_output

    @property
    def declutter(self) -> Result | None:
        """The page's Result; None only when its analysis failed (logged and counted).

        Kept for callbacks with ``DECLUTTER_CALLBACK_RESULTS``; without it, reading this
        raises ``ResultNotKeptError``, which names the setting.
        """
        output = self.declutter_output
        if output is None:
            return None
        return output.result_on(lambda: self.selector.root, self.url)  # type: ignore[attr-defined]


@functools.cache
def decluttered_class(cls: type) -> type:
    """``cls`` with ``DeclutteredResponse`` mixed in, made once per response class."""
    return type(f"Decluttered{cls.__name__}", (DeclutteredResponse, cls),
                {"attributes": (*cls.attributes, "declutter_output"), "__module__": __name__})


def decluttered(response: Response) -> Response:
    """A copy of ``response`` (same body, headers and request) that can carry its Result."""
    if isinstance(response, DeclutteredResponse):
        return response
    return response.replace(cls=decluttered_class(type(response)))


def result_for(response: Response) -> Result | None:
    """The Result of ``response``: ``response.declutter`` for any response, None when not analysed.

    A response that is not an analysed HTML page (JSON, an error status, a
    request with ``meta={"declutter": False}``) has no Result.
    """
    return response.declutter if isinstance(response, DeclutteredResponse) else None
