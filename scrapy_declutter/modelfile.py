"""Reading a trained model's file: the one shipped in ``models/``, or one given by path.

Both trained steps (Dragnet's JSON, the learned classifier's ``.npz`` of
arrays) start the same way: the file's bytes, from the package's ``models/``
folder when no path is given, and one error, ``ModelError``, naming the file
and the command that rebuilds it when it cannot be read. Each model then
parses and validates its own format. Model files are data only (JSON, NumPy
arrays read with ``allow_pickle=False``): pickle is never involved, so a
model file cannot run code.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import ModelError

#: The package folder holding the shipped model files.
SHIPPED_FOLDER = "models"


def read_model_file(path: str | Path | None, shipped: str, *, rebuild: str) -> tuple[bytes, str]:
    """The bytes of a model file and the name messages call it by.

    ``path`` None reads the shipped file ``shipped`` from ``models/``;
    ``rebuild`` is the command that writes a new one, quoted in the error.
    """
    if path is None:
        source = f"scrapy_declutter/{SHIPPED_FOLDER}/{shipped}"
        file = resources.files("scrapy_declutter").joinpath(SHIPPED_FOLDER, shipped)
    else:
        source, file = str(path), Path(path)
    try:
        return file.read_bytes(), source
    except OSError as exc:
        raise ModelError(
            f"cannot read model file {source}: {exc}; rebuild it with `{rebuild}`") from exc
