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

No machine on the LAN may exhaust the server (measured on loopback: one address holding 200
streams and 200 idle sockets used to time out every other request until waitress's 120 s
channel timeout).  So: one address may hold at most ``PER_ADDRESS`` connections; a new one
past that closes that address's longest-idle connection (one waiting for a request), or is
refused when all of them are busy.  The whole server holds at most ``CONNECTIONS``, making
room the same way from the address that holds the most.  Connections idle for
``IDLE_TIMEOUT`` seconds are closed (a stream is never idle: it has a request running).  The
app itself limits the streams of one address (``CompanionConfig.max_streams_per_address``),
so one address cannot take every worker thread.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from flask import Flask

SPARE_THREADS = 8  # for page loads, API calls and downloads while every stream is open
PER_ADDRESS = 32  # connections one address may hold (a browser opens about 6 per server)
CONNECTIONS = 256  # connections the whole server holds
IDLE_TIMEOUT = 15  # seconds a connection may wait without sending a request
REQUEST_BODY = 4 << 20  # bytes of a request body waitress buffers (the app takes 2 MB at most)

WARN_EVERY = 60.0  # seconds between warnings about one address's refused connections

log = logging.getLogger(__name__)
_warned: dict[object, float] = {}  # when each address's refusals were last logged


def _guarded_channel(per_address: int, total: int) -> type:
    """A waitress channel class that keeps one address (and everyone) within its share."""
    from waitress.channel import HTTPChannel

    class GuardedChannel(HTTPChannel):
        def __init__(self, server, sock, addr, adj, map=None):
            super().__init__(server, sock, addr, adj, map=map)
            self._admit()

        def _idle(self) -> bool:
            return not self.requests and self.request is None and not self.total_outbufs_len

        def _admit(self) -> None:
            channels = [c for c in list(self.server.active_channels.values())
                        if isinstance(c, HTTPChannel) and c is not self and c.connected]
            host = self.addr[0] if isinstance(self.addr, tuple) else self.addr
            mine = [c for c in channels if (c.addr[0] if isinstance(c.addr, tuple) else c.addr) == host]
            if len(mine) >= per_address:
                self._make_room(mine, f"{host} holds {len(mine)} connections")
            elif len(channels) >= total:
                counts: dict[object, list] = {}
                for c in channels:
                    counts.setdefault(c.addr[0] if isinstance(c.addr, tuple) else c.addr, []).append(c)
                busiest = max(counts.values(), key=len)
                self._make_room(busiest, f"the server holds {len(channels)} connections")

        def _make_room(self, candidates: list, why: str) -> None:
            idle = [c for c in candidates if c._idle()] if candidates else []
            if idle:
                oldest = min(idle, key=lambda c: c.last_activity)
                oldest.handle_close()
            else:
                host = self.addr[0] if isinstance(self.addr, tuple) else self.addr
                now = time.monotonic()
                if now - _warned.get(host, float("-inf")) > WARN_EVERY:  # a flood must not flood the log
                    _warned[host] = now
                    log.warning("refusing connections from %s: %s, all busy", host, why)
                self.handle_close()

    return GuardedChannel


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
    from waitress.server import BaseWSGIServer, create_server

    server = create_server(
        app,
        host=host,
        port=port,
        threads=streams + SPARE_THREADS,
        # waitress stops accepting at this: the guarded channels keep well below it
        connection_limit=CONNECTIONS + 16,
        channel_timeout=IDLE_TIMEOUT,
        cleanup_interval=2,
        asyncore_use_poll=True,  # select() cannot watch descriptors past 1024
        max_request_body_size=REQUEST_BODY,
        channel_request_lookahead=1,
        outbuf_high_watermark=1 << 20,
        ident="cupboard",
        clear_untrusted_proxy_headers=True,
    )
    channel = _guarded_channel(PER_ADDRESS, CONNECTIONS)
    for listener in [server, *getattr(server, "map", {}).values()]:
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = channel
    return RunningServer(server, None, host, int(server.effective_port))  # type: ignore[attr-defined]


def start_server(app: Flask, host: str = "127.0.0.1", port: int = 0, streams: int | None = None) -> RunningServer:
    """Serve ``app`` from a background thread (tests, benchmarks); returns at once."""
    services = app.extensions.get("cupboard")
    streams = streams or (services.config.max_streams if services else 40)
    running = make_server(app, host, port, streams)
    thread = threading.Thread(target=running.server.run, name="cupboard-server", daemon=True)  # type: ignore[attr-defined]
    thread.start()
    running.thread = thread
    return running
