"""Benchmarks that print numbers (never timed tests: timings on a shared machine vary).

* ``crawl`` — pages/s and CPU per page of a Scrapy crawl with and without the plugin,
  and the reactor's longest stall (``python -m scrapy_declutter.lab.bench.crawl``);
* ``sitelearning`` — n-gram scoring time, a site model's size and the CPU site learning
  adds per page (``python -m scrapy_declutter.lab.bench.sitelearning``);
* ``report`` — size and rendering time of the inspection report on a large page
  (``python -m scrapy_declutter.lab.bench.report``).
"""
