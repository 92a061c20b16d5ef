"""Your own documents in the workspace: importing a folder as a document set and its corpus, and the corpus
versions (chunkings) of a set. Parsing and chunking themselves are in playground.data.documents."""
