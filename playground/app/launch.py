"""Start the Streamlit app on a workspace: `playground app`, `playground demo` (the Docker image's command) and the
end-to-end tests' servers all start it through streamlit_command, so they share one set of server options."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

APP_ENTRY = Path(__file__).resolve().parent / "streamlit_app.py"


def streamlit_command(
    db_path: str | os.PathLike, host: str = "127.0.0.1", port: int = 8501, headless: bool = True
) -> list[str]:
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP_ENTRY),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true" if headless else "false",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "minimal",  # no Deploy button or developer menu, wherever the app is launched from
        "--server.fileWatcherType",
        "none",  # no development server: watching sources costs each new browser session a scan of sys.modules
        "--",
        "--db",
        str(Path(db_path).resolve()),
    ]


def launch_app(db_path: str | os.PathLike, host: str = "127.0.0.1", port: int = 8501, headless: bool = True) -> int:
    """Run Streamlit in the foreground until it ends; SIGTERM and SIGINT are passed on so no server is left behind."""
    env = dict(os.environ, PLAYGROUND_DB=str(Path(db_path).resolve()))
    print(f"playground app on http://{host}:{port} (workspace {db_path})", file=sys.stderr)
    server = subprocess.Popen(streamlit_command(db_path, host, port, headless), env=env)

    def pass_on(signum, _frame) -> None:
        server.send_signal(signum)

    previous = {sig: signal.signal(sig, pass_on) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        return server.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
