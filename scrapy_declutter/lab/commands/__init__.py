"""The development commands of ``scrapy-declutter``: evaluate, train-model, train-dragnet, fuzz,
adversarial and regress.

Each module has ``register(subparsers)`` like the runtime commands in
``scrapy_declutter.cli``, which lists these modules by dotted path, and keeps
heavy imports inside its ``run`` so ``--help`` stays instant.
"""
