"""Serving the app: waitress, set up for long-lived streams on a small machine.

Why waitress: it is pure Python with no dependencies (it installs anywhere a Pi's Python
does), and since 2.0 it flushes every chunk a WSGI app yields straight to the socket
(``send_bytes`` is 1), so each Server-Sent Event leaves at once.  A slow phone cannot stall
its worker thread: output that the socket does not take at once waits in the channel's buffer,
bounded by ``outbuf_high_watermark``.  With ``channel_request_lookahead`` waitress keeps reading
the socket while a stream runs and tells the app (``waitress.client_disconnected``) when a
phone has gone, so the stream's thread is freed at the next heartbeat.

Each open stream holds one worker thread for as long as the page is open, so the pool is sized
for the streams the app allows (``CompanionConfig.max_streams``) plus room for ordinary requests.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from flask import Flask

SPARE_THREADS = 8  # for page loads, API calls and downloads while every stream is open


@dataclass
class RunningServer:
    """A server started by ``start_server``: where it listens and how to stop it."""

    server: object
    thread: threading.Thread | None
    host: str
    port: int

    @property
    def url(self) -> str:
        """The server's base address."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def stop(self, grace: float = 3.0) -> None:
        """End every stream (so pages see the end, not a broken connection), then close the
        connections, the server and its threads."""
        from waitress import wasyncore

        app = getattr(self.server, "application", None)
        services = getattr(app, "extensions", {}).get("cupboard") if app is not None else None
        if services is not None:
            services.hub.close()
            deadline = time.monotonic() + grace
            while services.broadcaster.count and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(0.1)  # the streams' last bytes leave through waitress's loop
        server = self.server
        if self.thread is not None and self.thread.is_alive():
            # close the sockets inside the loop's own thread: closed from here, they can vanish
            # under the loop's select() (EBADF in the server thread); an empty map ends the loop
            server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))  # type: ignore[attr-defined]
            self.thread.join(timeout=grace)
        else:
            server.close()  # type: ignore[attr-defined]
            wasyncore.close_all(server._map)  # type: ignore[attr-defined]
        server.task_dispatcher.shutdown(timeout=grace)  # type: ignore[attr-defined]


def make_server(app: Flask, host: str, port: int, streams: int) -> RunningServer:
    """A waitress server for ``app`` on ``host:port`` (port 0: any free port), not yet running."""
    from waitress.server import create_server

    server = create_server(
        app,
        host=host,
        port=port,
        threads=streams + SPARE_THREADS,
        connection_limit=streams + 4 * SPARE_THREADS,
        channel_request_lookahead=1,
        outbuf_high_watermark=1 << 20,
        ident="cupboard",
        clear_untrusted_proxy_headers=True,
    )
    return RunningServer(server, None, host, server.effective_port)  # type: ignore[attr-defined]


def start_server(app: Flask, host: str = "127.0.0.1", port: int = 0, streams: int | None = None) -> RunningServer:
    """Serve ``app`` from a background thread (tests, benchmarks); returns at once."""
    services = app.extensions.get("cupboard")
    streams = streams or (services.config.max_streams if services else 40)
    running = make_server(app, host, port, streams)
    thread = threading.Thread(target=running.server.run, name="cupboard-server", daemon=True)  # type: ignore[attr-defined]
    thread.start()
    running.thread = thread
    return running
