"""An example debate-eval plugin: the ``example-single`` evaluation method."""
