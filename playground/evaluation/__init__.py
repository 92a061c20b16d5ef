"""Metrics, paired A/B statistics, and (later) LLM judges."""
