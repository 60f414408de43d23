"""Output formats of the clean content, built from the labelled blocks alone."""

from .markdown import render_markdown

__all__ = ["render_markdown"]
