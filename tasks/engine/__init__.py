"""The engine: ``run_config`` (what changes results, its hash), ``runner`` (items in flight), ``results``
(the run directory), accounting, progress, locks, migration of older run directories."""
