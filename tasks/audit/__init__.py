"""The judge card's audit: plans the sub-runs, runs them through the engine and builds the card from
analysis's facets. It sits above both; neither the engine nor analysis imports it."""
