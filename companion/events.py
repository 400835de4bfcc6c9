"""Server-Sent Events: one queue per connected page, messages fanned out in publish order.

A message is encoded once (``SseMessage.encode``) and the same bytes go to every client, so 30
phones cost 30 queue puts, not 30 renderings.  A client that falls too far behind (its queue
is full) is dropped rather than slowing everybody else down; its browser reconnects by itself
with ``Last-Event-ID`` and catches up from the journal.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

HEARTBEAT = b": keep-alive\n\n"


@dataclass(frozen=True)
class SseMessage:
    """One Server-Sent Event: its ``event`` name, ``data`` (text, may span lines) and an
    optional ``id`` that the browser sends back as ``Last-Event-ID`` when it reconnects."""

    event: str
    data: str
    id: str | None = None
    retry_ms: int | None = None

    def encode(self) -> bytes:
        """The message in ``text/event-stream`` framing, ending with the blank line."""
        lines = []
        if self.retry_ms is not None:
            lines.append(f"retry: {self.retry_ms}")
        if self.id is not None:
            lines.append(f"id: {self.id}")
        lines.append(f"event: {self.event}")
        lines += [f"data: {part}" for part in self.data.split("\n")]
        return ("\n".join(lines) + "\n\n").encode("utf-8")


class TooManyClients(RuntimeError):
    """Every stream slot is taken (each stream holds one server thread)."""


_CLOSE = object()  # tells a client's stream to end


class Client:
    """One connected page: a bounded queue of encoded messages."""

    def __init__(self, broadcaster: "Broadcaster", size: int, address: str | None = None) -> None:
        self._broadcaster = broadcaster
        self.address = address  # the page's network address (streams per address are limited)
        self._queue: queue.Queue[object] = queue.Queue(maxsize=size)
        self.dropped = False

    def put(self, payload: bytes) -> bool:
        """Queue ``payload``; False (and the client is dropped) when the queue is full."""
        try:
            self._queue.put_nowait(payload)
            return True
        except queue.Full:
            self.dropped = True
            return False

    def close(self) -> None:
        """End this client's stream at its next read."""
        try:
            self._queue.put_nowait(_CLOSE)
        except queue.Full:
            self.dropped = True

    def stream(
        self,
        first: list[bytes],
        heartbeat: float,
        disconnected: Callable[[], bool] | None = None,
    ) -> Iterator[bytes]:
        """The bytes to send: ``first`` (the catch-up), then each queued message, with a
        heartbeat comment whenever nothing happened for ``heartbeat`` seconds.  Ends when the
        client is closed or dropped, or ``disconnected()`` says the peer has gone."""
        try:
            yield from first
            while not self.dropped:
                try:
                    item = self._queue.get(timeout=heartbeat)
                except queue.Empty:
                    if disconnected is not None and disconnected():
                        return
                    yield HEARTBEAT
                    continue
                if item is _CLOSE:
                    return
                assert isinstance(item, bytes)
                yield item
        finally:
            self._broadcaster.remove(self)


class Broadcaster:
    """Fans messages out to every connected client, in the order they are published."""

    def __init__(self, max_clients: int = 64, queue_size: int = 256, per_address: int | None = None) -> None:
        self.max_clients = max_clients
        self.per_address = per_address  # streams one network address may hold (None: no limit)
        self.queue_size = queue_size
        self._clients: list[Client] = []
        self._lock = threading.Lock()
        self._closed = False

    def connect(self, snapshot: Callable[[], list[bytes]], address: str | None = None) -> tuple[Client, list[bytes]]:
        """A new client (from network ``address``) and its catch-up messages.

        ``snapshot`` runs under the broadcaster's lock, so no message is published between the
        catch-up and the first queued message: nothing is missed and nothing comes twice.
        Refused (``TooManyClients``) past ``max_clients``, or past ``per_address`` streams
        from one address, so that one machine cannot take every stream's thread."""
        with self._lock:
            if self._closed:
                raise TooManyClients("the server is shutting down")
            if len(self._clients) >= self.max_clients:
                raise TooManyClients(f"{self.max_clients} pages are already connected")
            if self.per_address is not None and address is not None:
                mine = sum(1 for c in self._clients if c.address == address)
                if mine >= self.per_address:
                    raise TooManyClients(f"{address} already has {mine} pages open")
            client = Client(self, self.queue_size, address)
            first = snapshot()
            self._clients.append(client)
            return client, first

    def publish(self, message: SseMessage | bytes, before: Callable[[], None] | None = None) -> int:
        """Send ``message`` to every client; returns how many received it.

        ``before`` runs under the lock first (e.g. to update the snapshot new clients get), so
        a client connecting at the same moment sees either the old snapshot and this message,
        or the new snapshot alone."""
        payload = message.encode() if isinstance(message, SseMessage) else message
        with self._lock:
            if before is not None:
                before()
            clients = list(self._clients)
            sent = 0
            for client in clients:
                if client.put(payload):
                    sent += 1
                else:
                    self._clients.remove(client)
            return sent

    def remove(self, client: Client) -> None:
        """Forget ``client`` (its stream has ended)."""
        with self._lock:
            if client in self._clients:
                self._clients.remove(client)

    @property
    def closed(self) -> bool:
        """True once the server is shutting down."""
        return self._closed

    @property
    def count(self) -> int:
        """How many clients are connected."""
        with self._lock:
            return len(self._clients)

    def close(self) -> None:
        """End every stream (server shutdown) and refuse new ones."""
        with self._lock:
            self._closed = True
            clients, self._clients = self._clients, []
        for client in clients:
            client.close()
