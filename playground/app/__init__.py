"""The Streamlit UI. It calls the engine; the engine never imports it."""
