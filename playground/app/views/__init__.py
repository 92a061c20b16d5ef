"""Private helpers of the Retrievers, Runs, A/B, Traces and Sessions pages.

Modules without Streamlit (retrieval, runs, ab, traces, sessions, grid) shape engine data for display and are unit
tested; `background` holds the one Streamlit-specific piece: a short engine call (the Playground's Run) that survives
the person typing. Runs are never answered in a page: they are jobs (runs/jobs.py), followed with components/jobs.py.
"""
