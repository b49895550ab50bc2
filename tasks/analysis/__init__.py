"""Analysis of result records: meta-evaluation (correlations, pairwise metrics, bootstrap), paper tables,
the ablation plot, importers of published outputs, the HTML report."""
