"""Cups table layouts, read from versioned JSON files like the Gobblet piece sets and boards.

A layout says where each container stands on the table plane, in millimetres: the south
player's X cups and the north player's X cups (each listed from that player's own left), the
two bowls (south's, north's) and the two stocks (south's, north's).  Table coordinates: origin
at the play area's south-west corner, x toward the east (south's right), y toward the north
player, z up.  South sits at y < 0 looking north; north sits beyond ``depth_mm`` looking south,
so north's left is the east.  Each container is a circle: ``diameter_mm`` across its rim and
``height_mm`` from the table to the rim (a stock is a low dish or a plain patch of table: height
0).

The shipped layouts live in ``hardware/cups/layouts``; a name finds one of them, a path any
other file.  ``load_layout`` raises ``DataFileError`` naming the file and the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from engine.inputs import InputError, read_json_file
from hardware.pieces import DataFileError, check_header

LAYOUT_DIR = Path(__file__).resolve().parent / "layouts"
LAYOUT_FORMAT = "cupboard-cups-layout"
LAYOUT_VERSION = 1
MIN_CUPS, MAX_CUPS = 3, 10  # RULES.md: X = 4 standard, 3-10 allowed
KINDS = ("cup", "bowl", "stock")
SIDES = ("south", "north")


@dataclass(frozen=True)
class Container:
    """One cup, bowl or stock: its kind, owner (``south``/``north``), index (cups: from the
    owner's left; bowls and stocks: 0), centre on the table (mm), rim diameter and height."""

    kind: str
    side: str
    index: int
    x_mm: float
    y_mm: float
    diameter_mm: float
    height_mm: float

    @property
    def key(self) -> str:
        """A short name: ``south.cup2``, ``north.bowl``, ``south.stock``."""
        return f"{self.side}.{self.kind}{self.index if self.kind == 'cup' else ''}"

    @property
    def radius_mm(self) -> float:
        """Half the rim diameter."""
        return self.diameter_mm / 2.0


@dataclass(frozen=True)
class CupsLayout:
    """A whole Cups table: the play area's size and every container.  ``containers`` lists
    south's cups, north's cups, south's bowl, north's bowl, south's stock, north's stock, in
    that order (the order of ``TableState.as_counts``)."""

    name: str
    description: str
    cups_per_row: int
    width_mm: float
    depth_mm: float
    containers: tuple[Container, ...]

    def cups(self, side: str) -> tuple[Container, ...]:
        """``side``'s cups from that player's left."""
        return tuple(c for c in self.containers if c.kind == "cup" and c.side == side)

    def bowl(self, side: str) -> Container:
        """``side``'s bowl."""
        return next(c for c in self.containers if c.kind == "bowl" and c.side == side)

    def stock(self, side: str) -> Container:
        """``side``'s stock."""
        return next(c for c in self.containers if c.kind == "stock" and c.side == side)


def _number(d: object, key: str, where: str, low: float | None = None, high: float | None = None) -> float:
    if not isinstance(d, dict) or key not in d:
        raise DataFileError(f"{where}: missing field {key!r}")
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        raise DataFileError(f"{where}.{key}: must be a finite number, got {v!r}")
    v = float(v)
    if low is not None and v < low or high is not None and v > high:
        raise DataFileError(f"{where}.{key}: must be from {low:g} to {high:g} mm, got {v:g}")
    return v


def _container(raw: object, kind: str, side: str, index: int, where: str) -> Container:
    if not isinstance(raw, dict):
        raise DataFileError(f"{where}: a container is an object with x_mm, y_mm, diameter_mm, height_mm")
    return Container(kind, side, index, _number(raw, "x_mm", where, -5000, 5000),
                     _number(raw, "y_mm", where, -5000, 5000), _number(raw, "diameter_mm", where, 10, 600),
                     _number(raw, "height_mm", where, 0, 300))


def _pair(data: dict, key: str, where: str) -> list:
    raw = data.get(key)
    if not isinstance(raw, dict) or set(raw) != set(SIDES):
        raise DataFileError(f"{where}: field {key!r} must be an object with 'south' and 'north'")
    return [raw["south"], raw["north"]]


def layout_from_dict(data: dict, where: str = "layout") -> CupsLayout:
    """Validate and build a CupsLayout from its JSON object; errors start with ``where`` and
    name the field."""
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise DataFileError(f"{where}: field 'name' must be a non-empty string")
    x = data.get("cups_per_row")
    if isinstance(x, bool) or not isinstance(x, int) or not MIN_CUPS <= x <= MAX_CUPS:
        raise DataFileError(f"{where}.cups_per_row: must be a whole number from {MIN_CUPS} to {MAX_CUPS}, got {x!r}")
    width = _number(data, "width_mm", where, 50, 5000)
    depth = _number(data, "depth_mm", where, 50, 5000)
    containers: list[Container] = []
    for side, rows in zip(SIDES, _pair(data, "cups", where)):
        if not isinstance(rows, list) or len(rows) != x:
            raise DataFileError(f"{where}.cups.{side}: must list {x} cups (cups_per_row), from {side}'s left")
        containers += [_container(r, "cup", side, i, f"{where}.cups.{side}[{i}]") for i, r in enumerate(rows)]
    for kind in ("bowl", "stock"):
        for side, raw in zip(SIDES, _pair(data, kind + "s", where)):
            containers.append(_container(raw, kind, side, 0, f"{where}.{kind}s.{side}"))
    _check_geometry(containers, width, depth, where)
    return CupsLayout(name, str(data.get("description", "")), x, width, depth, tuple(containers))


def _field(c: Container) -> str:
    return {"cup": f"cups.{c.side}[{c.index}]", "bowl": f"bowls.{c.side}", "stock": f"stocks.{c.side}"}[c.kind]


def _check_geometry(containers: list[Container], width: float, depth: float, where: str) -> None:
    """Containers inside the play area, apart from each other, and each row in its player's
    order (south's cups west to east, north's east to west, the rows facing)."""
    for c in containers:
        if (c.x_mm - c.radius_mm < 0 or c.x_mm + c.radius_mm > width
                or c.y_mm - c.radius_mm < 0 or c.y_mm + c.radius_mm > depth):
            raise DataFileError(f"{where}.{_field(c)}: the container (centre {c.x_mm:g}, {c.y_mm:g}, "
                                f"diameter {c.diameter_mm:g}) reaches outside the play area "
                                f"({width:g} x {depth:g} mm)")
    for i, a in enumerate(containers):
        for b in containers[i + 1:]:
            gap = math.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm) - a.radius_mm - b.radius_mm
            if gap < 0:
                raise DataFileError(f"{where}.{_field(b)}: overlaps {_field(a)} by {-gap:.1f} mm")
    south = [c for c in containers if c.kind == "cup" and c.side == "south"]
    north = [c for c in containers if c.kind == "cup" and c.side == "north"]
    for row, sign, side in ((south, 1, "south"), (north, -1, "north")):
        for a, b in zip(row, row[1:]):
            if sign * (b.x_mm - a.x_mm) <= 0:
                raise DataFileError(f"{where}.{_field(b)}: {side}'s cups must be listed from {side}'s left "
                                    f"({'west to east' if sign > 0 else 'east to west'})")
    if max(c.y_mm for c in south) >= min(c.y_mm for c in north):
        raise DataFileError(f"{where}.cups: south's row must be nearer y = 0 than north's row")


def layout_names() -> list[str]:
    """Names of the shipped layouts."""
    return sorted(p.stem for p in LAYOUT_DIR.glob("*.json"))


def load_layout(name_or_path: str | Path) -> CupsLayout:
    """Load a layout by shipped name (``cups-4``, ``cups-6``) or by path; DataFileError names
    the file and the problem."""
    p = Path(name_or_path)
    if p.suffix != ".json" and not p.exists():
        p = LAYOUT_DIR / f"{name_or_path}.json"
        if not p.exists():
            raise DataFileError(f"no Cups layout named {str(name_or_path)!r}; known: {', '.join(layout_names())}")
    try:
        data = read_json_file(p)
    except InputError as e:
        raise DataFileError(str(e)) from None
    data = check_header(data, LAYOUT_FORMAT, LAYOUT_VERSION, str(p))
    return layout_from_dict(data, str(p))
