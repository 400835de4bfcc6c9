"""Physical piece sets and boards, read from JSON files a user can edit after measuring.

The shipped files live in ``hardware/data/sets`` and ``hardware/data/boards``; a user's own
files (``cupboard set new``) live in ``sets/`` and ``boards/`` of the user's data folder
(``$XDG_DATA_HOME/cupboard``).  A name such as ``storer-clear`` finds the user's file of that
name first, then the shipped one; a path finds any other.  Sizes are listed smallest
first: a *size class* is the index into that list.  Colour 0 is the light (White) player,
colour 1 the dark (Black) one.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.inputs import InputError, read_json_file

DATA_DIR = Path(__file__).resolve().parent / "data"
SET_FORMAT = "cupboard-piece-set"
BOARD_FORMAT = "cupboard-board"
FORMAT_VERSION = 1


class DataFileError(ValueError):
    """A piece-set or board file is missing, malformed or inconsistent; names file and problem."""


@dataclass(frozen=True)
class PieceSize:
    """One size class: its outer diameter, the diameter of the disc seen on top (a clear
    cup's plug is its inner diameter), its height, and whether it is solid (no cavity).
    ``top_edge`` is the profile where the top meets the wall: ``square`` (a sharp corner),
    ``rounded`` (a fillet of radius ``edge_mm``) or ``chamfered`` (a bevel ``edge_mm`` wide);
    seen from above, a rounded or chamfered edge shows midway across it
    (``seen_edge_diameter_mm``)."""

    name: str
    outer_diameter_mm: float
    top_diameter_mm: float
    height_mm: float
    solid: bool = False
    top_edge: str = "square"
    edge_mm: float = 0.0

    @property
    def seen_edge_diameter_mm(self) -> float:
        """The diameter at which an opaque top's edge shows from above: the outer diameter
        less the rounding or bevel (half of it on each side)."""
        return self.outer_diameter_mm - (self.edge_mm if self.top_edge != "square" else 0.0)


@dataclass(frozen=True)
class PieceColour:
    """How a player's pieces look: the top (or plug) colour and the wall colour, BGR 0-255."""

    name: str
    top_bgr: tuple[int, int, int]
    wall_bgr: tuple[int, int, int]


@dataclass(frozen=True)
class PieceSet:
    """A physical set of nesting cups in two colours.  ``material`` is ``opaque`` or
    ``clear`` (see-through walls, wood plug on top).  ``logical_sizes`` maps each size class
    to the engine's size (None when a class is not used by the rules in play)."""

    name: str
    description: str
    material: str
    colours: tuple[PieceColour, PieceColour]
    sizes: tuple[PieceSize, ...]
    default_board: str
    logical_sizes: tuple[int | None, ...]
    source: str = ""

    @property
    def clear(self) -> bool:
        """True for see-through cups."""
        return self.material == "clear"

    @property
    def default_game(self) -> str:
        """The variant this set is made for: 3 sizes play gobblet-jr, 5 goblet-5, else gobblet."""
        used = sum(v is not None for v in self.logical_sizes)
        return {3: "gobblet-jr", 5: "goblet-5"}.get(used, "gobblet")

    def logical_sizes_for(self, sizes: int) -> tuple[int | None, ...]:
        """The engine size of each size class in a game of ``sizes`` sizes: the set's own
        mapping when it maps that many, else its ``sizes`` largest classes (RULES.md: Storer's
        5-size set plays 4-size games with its 4 largest cups).  ValueError when the set has
        fewer sizes than the game."""
        if sum(v is not None for v in self.logical_sizes) == sizes:
            return self.logical_sizes
        n = len(self.sizes)
        if sizes > n:
            raise ValueError(f"the piece set {self.name!r} has {n} sizes; this game needs {sizes}")
        return tuple(None if i < n - sizes else i - (n - sizes) + 1 for i in range(n))


@dataclass(frozen=True)
class MarkerLayout:
    """The ArUco markers stuck at the board's four outer corners: dictionary name, ids in the
    order (a1 corner, far corner of the last file, far corner of the last rank... see
    ``hardware.markers``), printed side length and the white margin around each.  ``height_mm`` is how far
    the markers' printed face lies above (+) or below (-) the playing surface: 0 for markers
    stuck on the board; -12 for markers on cards laid on the table beside a board 12 mm thick."""

    dictionary: str
    ids: tuple[int, int, int, int]
    size_mm: float
    quiet_mm: float
    height_mm: float = 0.0


@dataclass(frozen=True)
class BoardSpec:
    """A playing board: grid of ``rows`` x ``cols`` squares of ``square_mm``, with an outer
    border of ``border_mm`` wood around the grid, grid line width and colours."""

    name: str
    description: str
    rows: int
    cols: int
    square_mm: float
    border_mm: float
    line_mm: float
    wood_bgr: tuple[int, int, int]
    line_bgr: tuple[int, int, int]
    markers: MarkerLayout
    source: str = ""

    @property
    def squares(self) -> int:
        """Number of squares."""
        return self.rows * self.cols

    @property
    def width_mm(self) -> float:
        """Width of the grid (files direction), mm."""
        return self.cols * self.square_mm

    @property
    def depth_mm(self) -> float:
        """Depth of the grid (ranks direction), mm."""
        return self.rows * self.square_mm

    def square_centre(self, index: int) -> tuple[float, float]:
        """Board coordinates (mm) of the centre of square ``index`` (file = index % cols)."""
        f, r = index % self.cols, index // self.cols
        return ((f + 0.5) * self.square_mm, (r + 0.5) * self.square_mm)

    def square_name(self, index: int) -> str:
        """Algebraic name like ``a1``."""
        return f"{'abcdefgh'[index % self.cols]}{index // self.cols + 1}"


def _get(d: dict, key: str, kind: type | tuple, where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise DataFileError(f"{where}: missing field {key!r}")
    value = d[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:
            raise DataFileError(f"{where}: field {key!r} is too large") from None
    if kind is float and isinstance(value, float) and not math.isfinite(value):
        raise DataFileError(f"{where}: field {key!r} must be a finite number")
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise DataFileError(f"{where}: field {key!r} should be {getattr(kind, '__name__', kind)}, "
                            f"got {type(value).__name__}")
    return value


def _bgr(value: Any, where: str) -> tuple[int, int, int]:
    if (not isinstance(value, list) or len(value) != 3
            or not all(isinstance(v, int) and 0 <= v <= 255 for v in value)):
        raise DataFileError(f"{where}: a colour is a list of three integers 0-255 (B, G, R)")
    return (value[0], value[1], value[2])


def _positive(value: float, where: str) -> float:
    if not value > 0:
        raise DataFileError(f"{where}: must be greater than 0, got {value}")
    return value


def _read(path: Path, fmt: str) -> dict:
    try:
        data = read_json_file(path)
    except InputError as e:
        raise DataFileError(str(e)) from None
    return check_header(data, fmt, FORMAT_VERSION, str(path))


def check_header(data: Any, fmt: str, version: int, where: str, error: type[ValueError] = DataFileError,
                 advice: str = "") -> dict:
    """``data`` as a dict once it is a JSON object naming format ``fmt`` and ``version``;
    otherwise ``error`` naming ``where`` and the problem (``advice`` follows a wrong version)."""
    if not isinstance(data, dict):
        raise error(f"{where}: the top level must be a JSON object")
    if data.get("format") != fmt:
        raise error(f"{where}: field 'format' must be {fmt!r}, got {data.get('format')!r}")
    if data.get("version") != version:
        raise error(f"{where}: unsupported version {data.get('version')!r} "
                    f"(this cupboard reads version {version}){advice}")
    return data


def user_data_dir() -> Path:
    """The user's cupboard data folder: ``$XDG_DATA_HOME/cupboard`` (``~/.local/share/cupboard``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "cupboard"


def _names(kind: str, data_dir: Path | None) -> dict[str, str]:
    """Every name of ``kind`` (sets or boards): the user's own (``"user"``), then the shipped
    ones (``"shipped"``); a user's file shadows a shipped one of the same name."""
    own = sorted(p.stem for p in ((data_dir or user_data_dir()) / kind).glob("*.json"))
    names = {n: "user" for n in own}
    for name in sorted(p.stem for p in (DATA_DIR / kind).glob("*.json")):
        names.setdefault(name, "shipped")
    return names


def piece_set_names(data_dir: Path | None = None) -> dict[str, str]:
    """Piece-set names a user can give: their own (value ``"user"``) and the shipped ones."""
    return _names("sets", data_dir)


def board_names(data_dir: Path | None = None) -> dict[str, str]:
    """Board names a user can give: their own (value ``"user"``) and the shipped ones."""
    return _names("boards", data_dir)


def _resolve(name_or_path: str | Path, kind: str, data_dir: Path | None = None) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".json" or p.exists():
        return p
    own = (data_dir or user_data_dir()) / kind / f"{name_or_path}.json"
    if own.exists():
        return own
    shipped = DATA_DIR / kind / f"{name_or_path}.json"
    if not shipped.exists():
        known = ", ".join(_names(kind, data_dir))
        raise DataFileError(f"no {kind[:-1]} named {str(name_or_path)!r}; known: {known}")
    return shipped


def data_file(name_or_path: str | Path, kind: str, data_dir: Path | None = None) -> Path:
    """The file a set (``kind`` "sets") or board ("boards") name stands for: the user's own
    in ``data_dir`` first, then the shipped one; a path as it is.  DataFileError if unknown."""
    return _resolve(name_or_path, kind, data_dir)


def piece_set_from_dict(data: dict, where: str = "piece set") -> PieceSet:
    """Validate and build a PieceSet from its JSON object; errors start with ``where``."""
    material = _get(data, "material", str, where)
    if material not in ("opaque", "clear"):
        raise DataFileError(f"{where}: material must be 'opaque' or 'clear', got {material!r}")
    raw_colours = _get(data, "colours", list, where)
    if len(raw_colours) != 2:
        raise DataFileError(f"{where}: 'colours' must list exactly two players (light, dark)")
    colours = []
    for i, c in enumerate(raw_colours):
        w = f"{where}: colours[{i}]"
        colours.append(PieceColour(_get(c, "name", str, w), _bgr(_get(c, "top_bgr", list, w), w),
                                   _bgr(_get(c, "wall_bgr", list, w), w)))
    raw_sizes = _get(data, "sizes", list, where)
    if not 2 <= len(raw_sizes) <= 6:
        raise DataFileError(f"{where}: 'sizes' must list 2 to 6 sizes, smallest first")
    sizes = []
    for i, s in enumerate(raw_sizes):
        w = f"{where}: sizes[{i}]"
        od = _positive(_get(s, "outer_diameter_mm", float, w), f"{w}.outer_diameter_mm")
        top = _positive(_get(s, "top_diameter_mm", float, w), f"{w}.top_diameter_mm")
        h = _positive(_get(s, "height_mm", float, w), f"{w}.height_mm")
        if top > od:
            raise DataFileError(f"{w}: top_diameter_mm ({top}) exceeds outer_diameter_mm ({od})")
        sizes.append(PieceSize(_get(s, "name", str, w), od, top, h, bool(s.get("solid", False)),
                               *_top_edge(s, od, w)))
    for i in range(1, len(sizes)):
        if sizes[i].outer_diameter_mm <= sizes[i - 1].outer_diameter_mm:
            raise DataFileError(f"{where}: sizes must be listed smallest first "
                                f"(sizes[{i}] is not wider than sizes[{i - 1}])")
    logical = data.get("logical_sizes", list(range(1, len(sizes) + 1)))
    if not isinstance(logical, list) or len(logical) != len(sizes) or not all(
            v is None or isinstance(v, int) for v in logical):
        raise DataFileError(f"{where}: logical_sizes must list one integer or null per size")
    return PieceSet(
        name=_get(data, "name", str, where),
        description=data.get("description", ""),
        material=material,
        colours=(colours[0], colours[1]),
        sizes=tuple(sizes),
        default_board=_get(data, "default_board", str, where),
        logical_sizes=tuple(logical),
        source=data.get("source", ""),
    )


TOP_EDGES = ("square", "rounded", "chamfered")


def _top_edge(s: dict, outer: float, where: str) -> tuple[str, float]:
    """A size's ``top_edge`` and ``edge_mm`` (both optional: a square edge)."""
    edge = s.get("top_edge", "square")
    if edge not in TOP_EDGES:
        raise DataFileError(f"{where}.top_edge: {edge!r} is not one of {', '.join(TOP_EDGES)}")
    width = s.get("edge_mm", 0.0)
    if not isinstance(width, (int, float)) or isinstance(width, bool) or not 0.0 <= float(width) <= outer / 4:
        raise DataFileError(f"{where}.edge_mm: the rounding or bevel must be from 0 to a quarter of the outer "
                            f"diameter ({outer / 4:g} mm), got {width!r}")
    if edge == "square" and width:
        raise DataFileError(f"{where}.edge_mm: a square top edge has no rounding; set top_edge to rounded or chamfered")
    return edge, float(width)


def _marker_height(value: object, where: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not -100.0 <= float(value) <= 100.0:
        raise DataFileError(f"{where}.height_mm: the markers' height above the playing surface must be a number "
                            f"of mm from -100 to 100 (negative: below it), got {value!r}")
    return float(value)


def board_from_dict(data: dict, where: str = "board") -> BoardSpec:
    """Validate and build a BoardSpec from its JSON object; errors start with ``where``."""
    rows = _get(data, "rows", int, where)
    cols = _get(data, "cols", int, where)
    if not (2 <= rows <= 8 and 2 <= cols <= 8):
        raise DataFileError(f"{where}: rows and cols must be between 2 and 8")
    m = _get(data, "markers", dict, where)
    w = f"{where}: markers"
    ids = _get(m, "ids", list, w)
    if (len(ids) != 4 or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in ids)
            or len(set(ids)) != 4):
        raise DataFileError(f"{w}: 'ids' must be four different non-negative integers")
    markers = MarkerLayout(_get(m, "dictionary", str, w), (ids[0], ids[1], ids[2], ids[3]),
                           _positive(_get(m, "size_mm", float, w), f"{w}.size_mm"),
                           _get(m, "quiet_mm", float, w), _marker_height(m.get("height_mm", 0.0), w))
    return BoardSpec(
        name=_get(data, "name", str, where),
        description=data.get("description", ""),
        rows=rows, cols=cols,
        square_mm=_positive(_get(data, "square_mm", float, where), f"{where}: square_mm"),
        border_mm=_get(data, "border_mm", float, where),
        line_mm=_get(data, "line_mm", float, where),
        wood_bgr=_bgr(_get(data, "wood_bgr", list, where), f"{where}: wood_bgr"),
        line_bgr=_bgr(_get(data, "line_bgr", list, where), f"{where}: line_bgr"),
        markers=markers,
        source=data.get("source", ""),
    )


def load_piece_set(name_or_path: str | Path, data_dir: Path | None = None) -> PieceSet:
    """Load a piece set by name (the user's own in ``data_dir``, default the user's data folder,
    or a shipped one: ``gobblet``, ``gobblet-jr``, ``storer-clear``) or path; raises
    DataFileError naming the file and the problem."""
    path = _resolve(name_or_path, "sets", data_dir)
    return piece_set_from_dict(_read(path, SET_FORMAT), str(path))


def load_board(name_or_path: str | Path, data_dir: Path | None = None) -> BoardSpec:
    """Load a board by name (the user's own first, then the shipped ones) or path; raises
    DataFileError naming file and problem."""
    path = _resolve(name_or_path, "boards", data_dir)
    return board_from_dict(_read(path, BOARD_FORMAT), str(path))


def shipped_piece_sets() -> list[str]:
    """Names of the piece sets shipped with cupboard."""
    return sorted(p.stem for p in (DATA_DIR / "sets").glob("*.json"))


def shipped_boards() -> list[str]:
    """Names of the boards shipped with cupboard."""
    return sorted(p.stem for p in (DATA_DIR / "boards").glob("*.json"))
