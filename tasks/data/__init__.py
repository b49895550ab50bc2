"""Data: the dataset registry (one module per dataset), templates, own files, packaged copies, download."""
