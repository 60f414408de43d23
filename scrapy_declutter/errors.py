"""One exception family, so callers can tell our failures from anyone else's.

Every error the package raises on purpose is here, under ``DeclutterError``:
``except DeclutterError`` catches them all, and a subclass says which part
failed. Several also subclass the built-in a caller would expect
(``KeyError`` for a name, ``ValueError`` for a value), so code written
against those keeps working.
"""


class DeclutterError(Exception):
    """Base class of every error scrapy_declutter raises on purpose."""


class UnknownExtractorError(DeclutterError, KeyError):
    """An extractor or step name (or a step parameter) that is not registered; the
    message lists the valid ones."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class SettingsError(DeclutterError, ValueError):
    """DECLUTTER_* values or meta overrides that cannot be used; one argument per problem,
    each naming the setting and what it accepts."""

    def __str__(self) -> str:
        return "\n".join(str(a) for a in self.args)


class ResultNotKeptError(DeclutterError, LookupError):
    """A callback read the Result of a page analysed without ``DECLUTTER_CALLBACK_RESULTS``:
    its item fields are written, its Result was not kept; the message names the setting."""


class StoreError(DeclutterError):
    """A store URI that cannot be understood, or a store that cannot be opened."""


class StoreUnavailableError(DeclutterError):
    """The store cannot be reached now (Redis down, SQLite file locked for too long...)."""


class ModelFormatError(DeclutterError):
    """Serialised site-model data that is corrupt, foreign, or from a newer version."""


class ModelVersionError(ModelFormatError):
    """A site model written by a newer release: never overwritten, never read."""


class MissingExtraError(DeclutterError):
    """A lab command needs an optional dependency that cannot be imported; the message
    names the extra to install."""


class ModelError(DeclutterError):
    """A trained model's file that is missing, unreadable, malformed or of another format
    version; the message names the file and the command that rebuilds it."""
