"""Seeded mutations of JSON values and bytes, for the fault tests and ``bench/faults.py``."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

WEIRD: list[Any] = [
    None, True, False, 0, -1, 1, 2**70, -(2**70), 1e308, -1e-308, 0.5, "", "x", "\ud800", "\x00",
    "é" * 3, [], {}, [1, 2], {"a": 1}, [[[[[]]]]], "1e400", 10**400,
]


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys and indexes) into a JSON value, the root included."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value[:8]):
            out += paths(item, prefix + (i,))
    return out


def _set(root: Any, path: tuple, value: Any, delete: bool = False) -> Any:
    if not path:
        return value
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    elif delete and isinstance(parent, list):
        parent.pop(path[-1])
    else:
        parent[path[-1]] = value
    return root


def mutate_value(data: Any, rng: random.Random) -> Any:
    """A copy of ``data`` with one or two fields replaced by odd values, deleted or nested."""
    out = copy.deepcopy(data)
    for _ in range(rng.choice((1, 1, 2))):
        path = rng.choice(paths(out))
        roll = rng.random()
        if roll < 0.15 and path:
            out = _set(out, path, None, delete=True)
        elif roll < 0.25:
            deep: Any = 1
            for _ in range(rng.choice((40, 200, 5000))):
                deep = [deep]
            out = _set(out, path, deep)
        else:
            out = _set(out, path, copy.deepcopy(rng.choice(WEIRD)))
    return out


def mutate_bytes(raw: bytes, rng: random.Random) -> bytes:
    """``raw`` with a few bytes flipped, inserted (some not UTF-8) or cut off."""
    data = bytearray(raw)
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        at = rng.randrange(len(data) + 1)
        if roll < 0.3 and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif roll < 0.6:
            data[at:at] = rng.choice((b"\xff", b"\xc3", b"\x00", b"{", b"]", b'"', b"\\u", b"NaN", b"1e999"))
        elif roll < 0.8:
            del data[at:]
        else:
            del data[at:at + rng.randint(1, 50)]
    return bytes(data)


def mutations(data: Any, count: int, seed: int) -> list[bytes]:
    """``count`` seeded mutations of the JSON value ``data``, as file or request bytes: half
    mutate fields, half mutate the bytes."""
    rng = random.Random(seed)
    raw = json.dumps(data).encode()
    out = []
    for i in range(count):
        if i % 2:
            out.append(mutate_bytes(raw, rng))
        else:
            try:
                out.append(json.dumps(mutate_value(data, rng), ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass"))
            except (RecursionError, ValueError):
                out.append(mutate_bytes(raw, rng))
    return out
