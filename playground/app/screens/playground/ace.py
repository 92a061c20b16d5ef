"""The Ace editor of streamlit-ace with live autocompletion off, so Enter inserts a newline.

streamlit-ace's frontend turns Ace's live autocompletion on unconditionally (enableLiveAutocompletion=!0 in its
bundle) and offers no option for it: its popup opens while typing and Enter then accepts a suggestion instead of
breaking the line. This module serves a copy of that frontend, made once per installed version in a cache folder,
with that one flag off; the Python call is streamlit-ace's own (same arguments, same value returned).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

LIVE_ON, LIVE_OFF = b"enableLiveAutocompletion=!0", b"enableLiveAutocompletion=!1"


def _source_build() -> Path:
    import streamlit_ace

    return Path(streamlit_ace.__file__).resolve().parent / "frontend" / "build"


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    root = Path(base) / "playground"
    try:
        root.mkdir(parents=True, exist_ok=True)
        return root
    except OSError:
        return Path(tempfile.gettempdir()) / "playground-cache"


def patched_build(source: Path | None = None) -> Path:
    """A copy of streamlit-ace's frontend build with live autocompletion off (made once, then reused)."""
    source = source or _source_build()
    mains = sorted((source / "static" / "js").glob("main.*.js"))
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in mains)).hexdigest()[:12]
    target = _cache_root() / f"ace-frontend-{digest}"
    if (target / "index.html").is_file():
        return target
    staging = Path(tempfile.mkdtemp(prefix="ace-", dir=target.parent if target.parent.exists() else None))
    shutil.copytree(source, staging / "build")
    for main in sorted((staging / "build" / "static" / "js").glob("main.*.js")):
        main.write_bytes(main.read_bytes().replace(LIVE_ON, LIVE_OFF))
    try:
        (staging / "build").rename(target)
    except OSError:  # another process made it first
        pass
    shutil.rmtree(staging, ignore_errors=True)
    return target


@lru_cache(maxsize=1)
def _component():
    from streamlit.components.v1 import declare_component

    return declare_component("playground_ace", path=str(patched_build()))


def st_ace(
    value: str = "",
    placeholder: str = "",
    height=None,
    language: str = "plain_text",
    theme: str = "chrome",
    keybinding: str = "vscode",
    min_lines: int = 12,
    max_lines=None,
    font_size: int = 14,
    tab_size: int = 4,
    wrap: bool = False,
    show_gutter: bool = True,
    show_print_margin: bool = False,
    readonly: bool = False,
    annotations=None,
    markers=None,
    auto_update: bool = False,
    key=None,
):
    """streamlit_ace.st_ace, served from the patched frontend."""
    return _component()(
        defaultValue=str(value),
        placeholder=str(placeholder),
        height=height,
        minLines=min_lines,
        maxLines=max_lines,
        fontSize=font_size,
        tabSize=tab_size,
        mode=language,
        theme=theme,
        showGutter=show_gutter,
        showPrintMargin=show_print_margin,
        wrapEnabled=wrap,
        readOnly=readonly,
        keyboardHandler=keybinding,
        annotations=annotations or [],
        markers=markers or [],
        autoUpdate=auto_update,
        key=key,
        default=str(value),
    )
