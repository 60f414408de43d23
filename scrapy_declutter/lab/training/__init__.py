"""Training: the shipped models fitted from pages labelled by ``lab.alignment``.

* ``learned`` — the learned extractor's boosted trees (scikit-learn or
  LightGBM at train time only) exported to the NumPy arrays the runtime reads;
* ``dragnet`` — the Dragnet classifier's token odds and logistic regression, NumPy only.

Built on the lab's base (dataset, metric, alignment) and never on
``lab.evaluation``, which uses this package for its out-of-fold runs. The
runtime reads the model files these write, never this code.
"""
