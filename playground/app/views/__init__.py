"""Private helpers of the Retrievers, Runs, A/B, Traces and Sessions pages.

Modules without Streamlit (retrieval, runs, ab, traces, sessions, grid) shape engine data for display and are unit
tested; `interrupt` holds the one Streamlit-specific piece: a long engine call that a click can stop cleanly.
"""
