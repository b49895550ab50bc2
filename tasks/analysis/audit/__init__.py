"""The judge card of ``debate-eval audit``: facets computed from the audit's sub-runs (result records only;
no model calls here). ``facet`` (the shapes and the shared bootstrap), ``krippendorff`` (alpha),
``rows`` (per-item values), ``base_facets`` (agreement, verbosity, scale use), ``repeat_facets`` (stability,
position), ``perturbation_facets`` (robustness, injection), ``card`` (the card, JSON and Markdown)."""
