"""Dragnet (seed 001): the classifier step, its model file, and the features it reads.

- ``step``: the ``Dragnet`` step and the ``dragnet`` extractor's chain.
- ``model``: ``DragnetModel``, the logistic regression and its JSON model file.
- ``features``: the shallow-text, id/class-token and CETR feature matrix.
- ``cetr``: CETR's tag ratios, smoothing and k-means (Weninger et al.), the
  features Dragnet borrows.

Training lives apart (``scrapy_declutter.lab.training.dragnet``) and is never imported here.
"""
