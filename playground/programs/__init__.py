"""Programs: small functions of steps over one question (direct, rag, ...), each step a traced span."""
