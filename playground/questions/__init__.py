"""Questions generated from a corpus's own chunks, each kept with its gold answer, span and provenance, or rejected
with a reason (`playground questions generate`). It sits above data, store, retrieval, prompts and models."""
