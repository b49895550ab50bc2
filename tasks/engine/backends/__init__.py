"""Where a run's items are judged, behind one interface: ``runner.run`` picks the backend from the run options.

- ``in_process``: this event loop, many debates in flight (``run_in_process``); what each worker process and
  each Ray task also runs, over its shard;
- ``workers`` (``--workers N``): local processes, one per shard, their lines appended to the run directory by
  the parent (``run_workers`` over a ``Backend``: ``ProcessBackend``);
- ``ray`` (``--ray``): the shards as Ray tasks (``RayBackend``, the same ``Backend`` interface: ``start``,
  ``events``, ``stop``);
- ``shards``: which shard an item belongs to (``--shard K/N``), and the merge of separate shard runs.

The modules form a tree: ``ray`` uses ``workers``, both start ``in_process`` in their processes, and all use
``shards``; none imports ``runner``.
"""
