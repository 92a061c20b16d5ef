"""Corpora and benchmarks: the record model, one importer per format, seeded sampling, the demo."""
