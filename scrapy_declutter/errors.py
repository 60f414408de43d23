"""One exception family, so callers can tell our failures from anyone else's."""


class DeclutterError(Exception):
    """Base class of every error scrapy_declutter raises on purpose."""


class UnknownExtractorError(DeclutterError, KeyError):
    """An extractor or step name that is not registered; the message lists the valid ones."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class ModelError(DeclutterError):
    """A trained model's file that is missing, unreadable, malformed or of another format
    version; the message names the file and the command that rebuilds it."""
