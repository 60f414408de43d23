"""The shipped models: data files, read with importlib.resources (see ``learned.model`` and
``steps.dragnet``). A package so that setuptools ships them without a warning."""
