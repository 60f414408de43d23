"""Scoring on datasets: extractors and peers side by side, out-of-fold models, stages, site learning.

* ``runner`` — every system on every page in one run, scored with ``lab.metric``
  (or by snippets only, for sets without full text), tables per dataset and a summary;
* ``peers`` — other open-source extractors (the ``bench`` extra), same input, plain text out;
* ``crossval`` — the learned extractor scored out-of-fold, folds grouped by
  (dataset, domain); it trains models, so it sits above ``lab.training``;
* ``stages`` — where an extractor's time goes, step by step;
* ``sitelearning`` — pages of each site without, then with site learning.
"""
