"""Who may do what: anyone on the LAN may watch; controlling the game needs its token, and
requests that come from another site's page are refused.

The token travels in the ``X-Cupboard-Token`` header (the page's scripts) or ``?token=`` (the
link the terminal prints and the QR code).
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from flask import current_app, request

from engine.files import write_atomic

from .errors import ApiError

log = logging.getLogger(__name__)

TOKEN_HEADER = "X-Cupboard-Token"
TOKEN_FILE = "token"

F = TypeVar("F", bound=Callable)


def load_or_create_token(data_dir: Path) -> str:
    """The token kept in ``data_dir`` (so links survive a restart), created on first use and
    written atomically and durably (a crash never leaves an empty or half token).  In a
    folder that cannot be written, a token for this run only is made (and logged)."""
    path = Path(data_dir) / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
        if token:
            return token
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as e:
        log.warning("%s cannot be read (%s): a new token is made", path, e)
    token = secrets.token_urlsafe(12)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, token + "\n", what="the control token")  # owner-only, as mkstemp makes it
    except OSError as e:
        log.warning("%s; the token is kept for this run only", e)
    return token


def request_token() -> str | None:
    """The token the request carries, if any."""
    return request.headers.get(TOKEN_HEADER) or request.args.get("token") or None


def has_control() -> bool:
    """True when the request carries the right token."""
    given = request_token()
    expected = current_app.extensions["cupboard"].token
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def cross_site_reason() -> str | None:
    """Why this request looks like it comes from another site's page, or None."""
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site in ("cross-site", "same-site"):
        return f"the request comes from another site ({fetch_site})"
    for header in ("Origin", "Referer"):
        value = request.headers.get(header)
        if not value:
            continue
        if value == "null":
            return f"the request's {header} is hidden (null)"
        parts = urlsplit(value)
        if parts.netloc != request.host or parts.scheme not in ("http", "https"):
            return f"the request comes from {parts.scheme}://{parts.netloc}, not from this server"
        return None  # Origin decides when present; Referer only when Origin is absent
    return None


def require_control(view: F) -> F:
    """Let the view run only for same-site requests that carry the game's token."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        reason = cross_site_reason()
        if reason:
            raise ApiError(403, f"refused: {reason}")
        if request_token() is None:
            raise ApiError(401, "this needs the game's token: open the link or QR code the server printed")
        if not has_control():
            raise ApiError(403, "wrong token: open the link or QR code the server printed")
        return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
