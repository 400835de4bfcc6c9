"""Every error as JSON ``{"error": "..."}`` with a 4xx/5xx status: never a traceback."""

from __future__ import annotations

import logging

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from engine.files import StorageError
from engine.inputs import InputError

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error to answer with ``status`` and a sentence the user can act on."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error_response(status: int, message: str):
    """A JSON error response."""
    response = jsonify(error=message)
    response.status_code = status
    return response


def register_error_handlers(app: Flask) -> None:
    """Answer every error, expected or not, as JSON."""

    @app.errorhandler(ApiError)
    def _api_error(e: ApiError):
        return error_response(e.status, e.message)

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException):
        messages = {
            404: "no such page or resource",
            405: "this address does not take that method",
            413: "the upload is too large",
        }
        message = messages.get(e.code or 500) or (e.description or e.name)
        return error_response(e.code or 500, message)

    @app.errorhandler(StorageError)
    def _storage(e: StorageError):
        # a write that did not happen (a full or read-only disk): nothing changed, say why
        log.warning("%s", e)
        return error_response(507, str(e))

    @app.errorhandler(InputError)
    def _input(e: InputError):
        return error_response(400, str(e))

    @app.errorhandler(RecursionError)
    def _too_deep(e: RecursionError):
        return error_response(400, "the request is nested too deeply")

    @app.errorhandler(Exception)
    def _unexpected(e: Exception):
        log.exception("unexpected error")
        return error_response(500, "internal error: the server could not do that (see its log)")
