"""The one gate every input passes: request bodies, calibrations, piece sets, boards, records
and journals are decoded and checked here before anything acts on them.

Errors are ``InputError`` (a ``ValueError``) whose message names where the input came from (a
file's path, "the request body") and the field, so a person can find and fix it.  Strings are
checked for what the journal and the records can store: valid Unicode (no lone surrogates,
which UTF-8 cannot encode), no control characters, a bounded length.
"""

from __future__ import annotations

import json
import math
import os
import unicodedata
from typing import Any

MAX_DEPTH = 32  # no file or request of this project nests deeper than a few levels
MAX_STRING = 4096  # characters in any one string of a request body


class InputError(ValueError):
    """An input that cannot be used; the message names its file or field and the problem."""


def text_problem(value: str, multiline: bool = False) -> str | None:
    """Why ``value`` cannot be stored in a journal or a record, or None when it can."""
    for i, ch in enumerate(value):
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            return f"it holds an invalid character (a lone surrogate, \\u{code:04x}) at position {i}"
        if multiline and ch in "\n\t":
            continue
        if unicodedata.category(ch) == "Cc":
            return f"it holds a control character (\\x{code:02x}) at position {i}"
    return None


def check_text(value: Any, field: str, max_length: int, multiline: bool = False) -> str:
    """``value`` when it is a string a journal and a record can store, at most ``max_length``
    characters long; otherwise ``InputError`` naming ``field``."""
    if not isinstance(value, str):
        raise InputError(f"{field} must be text")
    if len(value) > max_length:
        raise InputError(f"{field} is too long ({len(value)} characters; at most {max_length})")
    problem = text_problem(value, multiline)
    if problem is not None:
        raise InputError(f"{field} cannot be stored: {problem}")
    return value


def check_strings(data: Any, where: str, max_length: int = MAX_STRING) -> None:
    """Every string in a parsed JSON value (keys too) must be storable text of at most
    ``max_length`` characters; ``InputError`` names the first field that is not."""
    stack: list[tuple[Any, str]] = [(data, where)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            check_text(value, path, max_length, multiline=True)
        elif isinstance(value, dict):
            for key, item in value.items():
                check_text(key, f"{path}: a field name", 200)
                stack.append((item, f"{path}.{key}" if path != where else f"{where}: {key}"))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(value))


def depth(data: Any) -> int:
    """How deeply lists and objects nest in a parsed JSON value (0 for a plain value)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, (dict, list)):
            level += 1
            deepest = max(deepest, level)
            stack.extend((item, level) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(raw: bytes | str, where: str, max_depth: int = MAX_DEPTH) -> Any:
    """Decode (UTF-8) and parse JSON text from ``where``; ``InputError`` names ``where`` and the
    problem: bytes that are not UTF-8, text that is not JSON, NaN or Infinity, nesting
    deeper than ``max_depth``."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"{where}: not UTF-8 text (byte {e.start} is 0x{e.object[e.start]:02x})") from None
    if raw.startswith("\ufeff"):
        raw = raw[1:]
    try:
        data = json.loads(raw, parse_constant=_no_constants)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}: not valid JSON (line {e.lineno}: {e.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: nested too deeply (at most {max_depth} levels)") from None
    except ValueError as e:
        raise InputError(f"{where}: not valid JSON ({e})") from None
    if depth(data) > max_depth:
        raise InputError(f"{where}: nested too deeply (at most {max_depth} levels)")
    return data


def read_json_file(path: str | os.PathLike[str], max_depth: int = MAX_DEPTH) -> Any:
    """The parsed JSON of the file at ``path``; ``InputError`` names the file and why it
    cannot be read or parsed."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a file") from None
    except OSError as e:
        raise InputError(f"{path}: cannot be read ({e.strerror or e})") from None
    return parse_json(raw, str(path), max_depth)


def finite_number(value: Any, field: str) -> float:
    """``value`` as a float when it is a finite JSON number (not a boolean); else ``InputError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{field}: expected a number, got {_kind(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise InputError(f"{field}: the number is too large") from None
    if not math.isfinite(number):
        raise InputError(f"{field}: expected a finite number")
    return number


def whole_number(value: Any, field: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` when it is a whole number (not a boolean) within ``low``..``high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{field}: expected a whole number, got {_kind(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"from {low}" if high is None else f"from {low} to {high}" if low is not None else f"up to {high}"
        raise InputError(f"{field}: must be {bounds}, got {value}")
    return value


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    return type(value).__name__
