"""The lab: everything used to develop, measure and retrain the extractors, nothing a crawl runs.

The runtime (``Page``, blocks, steps, extractors, site learning, the Scrapy
components, reports and the ``extract``/``inspect``/``train``/``sites``
commands) never imports this package; the lab imports the runtime freely. The
command line still offers the development commands: it names the modules of
``lab.commands`` by string, so installing the package without the lab's
optional dependencies costs nothing until one of those commands runs.

Layers, lowest first; a module imports only from the layers below its own
(the ``lab-layers`` contract in ``setup.cfg`` checks it):

* base — ``dataset`` (the WCXB-format reader), ``metric`` (the word metric,
  exactly as WCXB defines it), ``extras`` (which optional dependency each
  tool needs), and on them ``alignment`` (block labels from ground-truth text);
* ``training`` — fitting the learned and Dragnet models on aligned pages;
* ``evaluation`` — scoring extractors and peers on datasets, out-of-fold
  cross-validation (which trains, so it sits above training), stage timings,
  site-learning runs;
* tools beside evaluation — ``regress`` (saved runs of every extractor,
  compared after a refactor), ``fuzzing`` (Hypothesis strategies and
  invariants), ``adversarial`` (broken and oversized pages), ``bench``
  (crawl, site-learning and report benchmarks that print numbers);
* ``commands`` — the ``scrapy-declutter`` subcommands built on all of the above.
"""
