"""The pipeline around the methods: ``data`` (datasets, templates) -> ``engine`` (runner, run config,
results) -> ``analysis`` (meta-evaluation, tables, plots, report) -> ``cli`` (one module per command).
The engine never imports the CLI."""
