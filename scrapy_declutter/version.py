"""The release number, in a module of its own so that any part (the report's
footer, packaging) can read it without importing the package facade."""

__version__ = "0.1.0"
