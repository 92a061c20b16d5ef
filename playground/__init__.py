"""playground: a local-first workbench for prompt engineering over retrieval-augmented QA."""

__version__ = "0.1.0"


class PlaygroundError(Exception):
    """An error the user can act on; the CLI and the app show its message, never a traceback."""
