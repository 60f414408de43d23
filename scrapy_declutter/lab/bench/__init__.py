"""Benchmarks that print numbers (never timed tests: timings on a shared machine vary).

* ``crawl`` — pages/s and CPU per page of a Scrapy crawl with and without the plugin,
  and the reactor's longest stall (``python -m scrapy_declutter.lab.bench.crawl``);
* ``sitelearning`` — n-gram scoring time, a site model's size and the CPU site learning
  adds per page (``python -m scrapy_declutter.lab.bench.sitelearning``);
* ``report`` — size and rendering time of the inspection report on a large page
  (``python -m scrapy_declutter.lab.bench.report``);
* ``extracttime`` — ``extract()``'s time in one code's process (``bench-extract``).
"""

from __future__ import annotations

import os


def environment_with(pythonpath: str | None) -> dict[str, str]:
    """This process's environment with ``pythonpath`` (another checkout of the package, to
    measure a commit) first on ``PYTHONPATH``; unchanged for None."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, env.get("PYTHONPATH")]))
    return env
