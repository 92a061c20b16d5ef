"""Templates: the sandboxed Jinja2 environment, variable discovery, errors with part, line and column."""
