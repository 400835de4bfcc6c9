"""SVG drawings of positions: the board, the pieces, the reserves and the state of the game.

The drawing is one standalone SVG document (no external resources, no scripts) and the same
position always gives the same text.  Every piece carries ``data-square`` (or
``data-reserve``), ``data-colour`` and ``data-size`` attributes so a web page or a test can find
it; hidden pieces also carry ``data-depth`` (0 is the bottom of the stack).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from html import escape
from typing import TYPE_CHECKING

from .notation import describe_outcome
from .rules import BLACK, COLOUR_NAMES, WHITE
from .values import Move

if TYPE_CHECKING:  # the board imports this module (``Board.svg``)
    from .board import Board

CELL = 100  # one square, in drawing units (the viewBox); ``size_px`` scales the whole drawing
LABEL = 36  # room for the rank and file labels
STATUS = 48  # room for the status line above the board
GAP = 24  # between the board and the reserves
COLUMN = 100  # one player's reserve: a column beside the board, one slot per size or stack

FILL = {WHITE: "#f3e6c8", BLACK: "#4a3222"}
STROKE = {WHITE: "#8a7350", BLACK: "#1c120b"}
INK = {WHITE: "#3a2a18", BLACK: "#f3e6c8"}
SQUARE_FILLS = ("#d9c7a3", "#c4ad84")
ACCENT = "#2f7de1"

Point = tuple[float, float]


def _n(x: float) -> str:
    """A number as short, deterministic text."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _el(tag: str, attrs: dict[str, object], text: str | None = None) -> str:
    """One SVG element; float values are rounded, every value is escaped."""
    parts = [tag]
    for key, value in attrs.items():
        shown = _n(value) if isinstance(value, float) else str(value)
        parts.append(f'{key}="{escape(shown)}"')
    opening = " ".join(parts)
    if text is None:
        return f"<{opening}/>"
    return f"<{opening}>{escape(text)}</{tag}>"


def _radius(size: int, sizes: int, cell: float) -> float:
    """The radius of a piece of ``size``: the largest nearly fills its cell."""
    return cell / 2 * (0.3 + 0.62 * size / sizes)


def _square_index(board: Board, square: int | str) -> int:
    if isinstance(square, str):
        return board.geo.square(square)
    if not 0 <= square < board.rules.squares:
        raise ValueError(f"square {square} is not on the board (0 to {board.rules.squares - 1})")
    return square


def board_svg(
    board: Board,
    hidden: bool = False,
    last_move: Move | None = None,
    highlight: Iterable[int | str] = (),
    lifted: int | str | None = None,
    size_px: int = 360,
    flip: bool = False,
) -> str:
    """An SVG drawing of ``board``'s position.

    Each square's top piece is a circle whose radius grows with its size, with the size written
    inside; with ``hidden`` the pieces under each top are listed as small discs along the
    bottom of the square, bottom of the stack first.  ``last_move`` is shown as highlighted
    squares and an arrow, ``highlight`` squares (indices or names such as ``"b3"``) are
    outlined, and ``lifted`` marks a lifted piece and the squares it may go to (touch-move).
    Both reserves are drawn beside the board as columns, Black's left of White's (the other way
    round with ``flip``, which also turns the board so Black's side is at the bottom), one slot
    per size (loose pieces, with their count) or per external stack; each reserve piece carries an
    invisible hit area filling its slot, so a finger finds it easily.  The line above
    the board says whose move it is or how the game ended.  ``size_px`` is the drawing's width.
    Raises ValueError for a square that is not on the board.
    """
    n = board.rules.board
    names = board.geo.names
    board_w = n * CELL
    width = LABEL + board_w + GAP + 2 * COLUMN + GAP // 2
    height = STATUS + board_w + LABEL
    marked = sorted({_square_index(board, s) for s in highlight})
    lifted_sq = None if lifted is None else _square_index(board, lifted)

    def centre(square: int) -> Point:
        file, rank = square % n, square // n
        col = n - 1 - file if flip else file
        row = rank if flip else n - 1 - rank
        return LABEL + (col + 0.5) * CELL, STATUS + (row + 0.5) * CELL

    def square_rect(cls: str, sq: int, inset: float, style: dict[str, object]) -> str:
        x, y = centre(sq)
        box = {"x": x - CELL / 2 + inset, "y": y - CELL / 2 + inset}
        size = {"width": CELL - 2 * inset, "height": CELL - 2 * inset}
        return _el("rect", {"class": cls, "data-square": names[sq], **box, **size, **style})

    root = {
        "xmlns": "http://www.w3.org/2000/svg",
        "width": size_px,
        "height": round(size_px * height / width),
        "viewBox": f"0 0 {width} {height}",
        "font-family": "sans-serif",
        "data-variant": board.rules.token,
    }
    out = [
        _el("svg", root)[:-2] + ">",
        _el("rect", {"width": width, "height": height, "fill": "#fbf7ee"}),
    ]
    out.append(_status(board))
    out += _grid(board, centre)
    if last_move is not None:
        moved = (last_move.to,) if last_move.frm is None else (last_move.frm, last_move.to)
        for sq in moved:
            out.append(square_rect("last-move", sq, 0.0, {"fill": "#f2d24b", "fill-opacity": 0.55}))
    for sq in marked:
        style = {"fill": "none", "stroke": ACCENT, "stroke-width": 6}
        out.append(square_rect("highlight", sq, 3.0, style))
    for sq in range(board.rules.squares):
        out += _stack(board, sq, centre(sq), hidden, sq == lifted_sq)
    if lifted_sq is not None:
        for move in board.touch(lifted_sq).moves:
            x, y = centre(move.to)  # a corner dot, clear of the piece's size number
            dot = {"cx": x + CELL / 2 - 14, "cy": y - CELL / 2 + 14, "r": 9}
            style = {"fill": ACCENT, "fill-opacity": 0.85}
            out.append(
                _el("circle", {"class": "target", "data-square": names[move.to], **dot, **style})
            )
    if last_move is not None and last_move.frm is not None:
        out.append(_arrow(centre(last_move.frm), centre(last_move.to)))
    outcome = board.outcome()
    if outcome is not None and outcome.line:
        (x1, y1), (x2, y2) = centre(outcome.line[0]), centre(outcome.line[-1])
        style = {"stroke": "#d9302c", "stroke-width": 10, "stroke-linecap": "round"}
        ends = {"x1": x1, "y1": y1, "x2": x2, "y2": y2}
        out.append(_el("line", {"class": "win-line", **ends, **style, "stroke-opacity": 0.8}))
    x0 = float(LABEL + board_w + GAP)
    left, right = (WHITE, BLACK) if flip else (BLACK, WHITE)
    out += _reserve(board, left, x0, float(STATUS), float(board_w), hidden)
    out += _reserve(board, right, x0 + COLUMN, float(STATUS), float(board_w), hidden)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _status(board: Board) -> str:
    outcome = board.outcome()
    if outcome is None:
        text, state = f"{COLOUR_NAMES[board.turn]} to move", "playing"
    else:
        text, state = describe_outcome(board, outcome), "over"
    attrs = {"class": "status", "data-state": state, "x": LABEL, "y": STATUS - 16}
    return _el("text", {**attrs, "font-size": 26, "fill": "#2b2118"}, text)


def _grid(board: Board, centre: Callable[[int], Point]) -> list[str]:
    n = board.rules.board
    out = []
    for sq in range(board.rules.squares):
        x, y = centre(sq)
        light = (sq % n + sq // n) % 2 == 1  # a1 is dark, as on a chessboard
        box = {"x": x - CELL / 2, "y": y - CELL / 2, "width": CELL, "height": CELL}
        fill = SQUARE_FILLS[0 if light else 1]
        out.append(
            _el(
                "rect", {"class": "square", "data-square": board.geo.names[sq], **box, "fill": fill}
            )
        )
    label = {"class": "label", "font-size": 22, "text-anchor": "middle", "fill": "#5b4a33"}
    for i in range(n):
        x, _ = centre(i)  # the squares of rank 1 give each file's x
        file_y = STATUS + n * CELL + LABEL - 10
        out.append(_el("text", {**label, "x": x, "y": file_y}, board.geo.names[i][0]))
        _, y = centre(i * n)  # the squares of file a give each rank's y
        out.append(_el("text", {**label, "x": LABEL // 2, "y": y + 8}, str(i + 1)))
    return out


def _piece(
    cls: str,
    colour: int,
    size: int,
    at: Point,
    r: float,
    data: dict[str, object],
    hit: tuple[float, float, float, float] | None = None,
) -> str:
    """A piece: a group holding its disc and its size number, and ``hit`` (x, y, width,
    height), an invisible area taking the piece's taps, where it is given."""
    x, y = at
    font = r * 0.9 if r < 20 else 14 + r * 0.3
    group = {"class": cls, **data, "data-colour": COLOUR_NAMES[colour].lower(), "data-size": size}
    disc = {"cx": x, "cy": y, "r": r, "fill": FILL[colour], "stroke": STROKE[colour]}
    disc["stroke-width"] = max(1.5, r / 12)
    number = {"x": x, "y": y + font * 0.35, "font-size": font, "text-anchor": "middle"}
    area = ""
    if hit is not None:
        hx, hy, hw, hh = hit
        box = {"x": hx, "y": hy, "width": hw, "height": hh}
        area = _el("rect", {"class": "hit", **box, "fill": "#000", "fill-opacity": 0})
    return (
        _el("g", group)[:-2]
        + ">"
        + area
        + _el("circle", disc)
        + _el("text", {**number, "fill": INK[colour]}, str(size))
        + "</g>"
    )


def _stack(board: Board, sq: int, at: Point, hidden: bool, lifted: bool) -> list[str]:
    stack = board.stack(sq)
    if not stack:
        return []
    x, y = at
    name = board.geo.names[sq]
    colour, size = stack[-1]
    r = _radius(size, board.rules.sizes, CELL)
    out = []
    if lifted:
        ring = {"cx": x, "cy": y, "r": r + 5, "fill": "none", "stroke": ACCENT}
        ring.update({"stroke-width": 5, "stroke-dasharray": "8 5"})
        out.append(_el("circle", {"class": "lifted", "data-square": name, **ring}))
    out.append(_piece("piece", colour, size, at, r, {"data-square": name}))
    if hidden:
        for depth, (c, s) in enumerate(stack[:-1]):
            spot = (x - CELL / 2 + 12 + depth * 19, y + CELL / 2 - 12)
            out.append(
                _piece("hidden", c, s, spot, 9.0, {"data-square": name, "data-depth": depth})
            )
    return out


def _arrow(frm: Point, to: Point) -> str:
    (x1, y1), (x2, y2) = frm, to
    dx, dy = x2 - x1, y2 - y1
    length = (dx * dx + dy * dy) ** 0.5
    ux, uy = dx / length, dy / length
    head, half = 26, 14
    bx, by = x2 - ux * head, y2 - uy * head  # base of the arrow head
    points = [(x2, y2), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)]
    shaft = {"x1": x1, "y1": y1, "x2": bx, "y2": by, "stroke-width": 9, "stroke-linecap": "round"}
    group = {"class": "arrow", "fill": ACCENT, "stroke": ACCENT, "opacity": 0.75}
    return (
        _el("g", group)[:-2]
        + ">"
        + _el("line", shaft)
        + _el("polygon", {"points": " ".join(f"{_n(px)},{_n(py)}" for px, py in points)})
        + "</g>"
    )


def _reserve(
    board: Board, colour: int, x0: float, y0: float, height: float, hidden: bool
) -> list[str]:
    """``colour``'s reserve as a column of slots from ``(x0, y0)``, ``height`` tall: loose
    pieces one slot per size (largest on top, with their count), external stacks one slot each."""
    name = COLOUR_NAMES[colour]
    key = name.lower()
    sizes = board.rules.sizes
    tops = board.reserve_tops(colour)
    slots = board.rules.per_size if board.stacked else sizes
    slot_h = height / slots
    caption = {"class": "reserve-label", "x": x0 + COLUMN / 2, "y": y0 + height + LABEL - 10}
    area = {"x": x0 + 4, "y": y0, "width": COLUMN - 8, "height": height}
    out = [
        _el("rect", {"class": "reserve", "data-colour": key, **area, "fill": "#efe4cc", "rx": 8}),
        _el("text", {**caption, "font-size": 20, "text-anchor": "middle", "fill": "#2b2118"}, name),
    ]
    shown: dict[int, int] = {}  # loose pieces of each size drawn so far
    for i, size in enumerate(tops):
        slot = i if board.stacked else sizes - size
        x, y = x0 + COLUMN / 2, y0 + (slot + 0.5) * slot_h
        data: dict[str, object] = {"data-reserve": key, "data-index": i}
        if board.stacked:
            data["data-height"] = size  # an external stack of height h has size h on top
        elif shown.get(size):
            data["pointer-events"] = "none"  # the first piece of the slot takes its taps
        hit = (x0, y0 + slot * slot_h, float(COLUMN), slot_h)
        r = _radius(size, sizes, min(COLUMN, slot_h) - 16)
        out.append(_piece("reserve-piece", colour, size, (x, y), r, data, hit))
        shown[size] = shown.get(size, 0) + 1
        if hidden and board.stacked:
            for s in range(size - 1, 0, -1):  # the cups nested inside, as rings
                ring = {"cx": x, "cy": y, "r": _radius(s, sizes, min(COLUMN, slot_h) - 8)}
                ring.update({"fill": "none", "stroke": INK[colour], "stroke-width": 1})
                ring["stroke-dasharray"] = "3 2"
                out.append(
                    _el("circle", {"class": "reserve-hidden", **data, "data-size": s, **ring})
                )
    if not board.stacked:
        for size, count in shown.items():
            if count > 1:  # identical loose pieces share a slot: say how many there are
                y = y0 + (sizes - size + 1) * slot_h - 6
                at = {"x": x0 + COLUMN - 10, "y": y, "text-anchor": "end", "font-size": 18}
                attrs = {"class": "reserve-count", "data-colour": key, "data-size": size, **at}
                attrs["pointer-events"] = "none"  # a tap here is the slot's piece's
                out.append(_el("text", {**attrs, "fill": "#2b2118"}, f"×{count}"))
    return out
