"""The ``debate-eval`` command: ``main`` and one module per subcommand (run, methods, datasets, show,
meta-eval, rescore, ablate, repeat, report, ...). Nothing outside this package imports it."""
