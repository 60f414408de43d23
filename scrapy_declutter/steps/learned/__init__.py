"""The learned block classifier (the package's default extractor) and all it reads.

- ``step``: the ``LearnedClassifier`` step and the ``learned`` extractor's chain.
- ``features``: the feature matrix of a page's blocks, one named column each
  (``text``: the columns read from the blocks' text; ``containers``: the content and
  chrome elements whose blocks the ``in_*`` columns mark).
- ``model``: the tree ensemble evaluated with NumPy and its ``.npz`` model file.
- ``decide``: page-level rules that turn block probabilities into labels
  (``leftout``: the kept text the markup says is not the page's).

Inference needs only NumPy: the model is a data file of tree arrays trained
offline (``scrapy-declutter train-model``, code in ``scrapy_declutter.lab.training``,
never imported here). Where the package was built with a compiler, ``_trees``
and ``_chains`` (Cython) run the tree walk and the ancestor-chain features;
``trees`` and ``features`` keep the reference code that runs without them.
"""
