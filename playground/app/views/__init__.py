"""Private helpers of the app's pages.

Modules without Streamlit (retrieval, runs, ab, traces, sessions, grid, side_by_side, ...) shape engine data for
display and are unit tested; the others each draw one part of a page (an Experiments tab, the Playground's editor
text, preview, Run and save flow, Side by side's grid), and `background` runs a short engine call (the Playground's
Run) that survives the person typing. Runs are never answered in a page: they are jobs (runs/jobs.py), followed with
components/jobs.py.
"""
