"""The app's pages, one package each (screens/<page>/, the slug with "_" for "-"): its __init__ is the script
st.navigation runs (streamlit_app.py), its Streamlit-free data modules (data.py and the like) shape engine data for
display and are unit-tested, and its other modules draw one tab or part each. A page imports shared widgets
(components/), charts (charts/), state and resources, never another page's modules. Not "pages/": Streamlit treats
a pages/ folder beside streamlit_app.py as a v1 multipage app on its first script run (see app/state.py)."""
