"""Retrievers behind one protocol, the shared embedding cache, and index build/load with manifests."""
