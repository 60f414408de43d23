"""The development commands of ``scrapy-declutter``: evaluate, train-model, train-confidence,
train-dragnet, fuzz, adversarial, regress, check-walk, bench-crawl, bench-extract and
bench-compiled.

Each module has ``register(subparsers)`` like the runtime commands in
``scrapy_declutter.cli``, which lists these modules by dotted path. A command
checks its optional dependencies (``lab.extras.require``) before any work and
keeps heavy imports inside its ``run`` so ``--help`` stays instant.
"""
