"""End-to-end tests: the Streamlit app driven in a real headless Chromium."""
