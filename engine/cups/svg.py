"""An SVG drawing of a Cups position for the phone page.

Seen from South: South's row at the bottom reads cup 1 (left) to cup X with South's bowl at the
right end; North's row faces it, so from South's side it reads North's bowl, then North's cup X
down to cup 1; each cup sits opposite the one it captures from (my cup n faces cup X + 1 - n).
The stocks sit at each row's free end.  Every cup shows its bean count and, up to
``MAX_DOTS`` beans, the beans as dots.

Tappable parts of the side to move carry attributes a page can act on: a cup has ``data-sow``
(``s2``) when it can be sown and ``data-drop`` (``d2``: the drop whose last bean lands in it)
when that drop is legal, and ``data-move``, the move a single tap makes (the sow if there is one,
else the drop); the stock has ``data-move="d1"``.  Everything also carries ``data-player``,
``data-cup``/``data-bowl``/``data-stock`` and ``data-beans``.  The drawing is deterministic.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from .moves import Drop, Sow
from .rules import NORTH, SOUTH

if TYPE_CHECKING:  # the game module imports this one to draw itself
    from .game import CupsGame

CELL = 90
STATUS = 44
MAX_DOTS = 12
FILL = {SOUTH: "#f3e6c8", NORTH: "#d9c1a0"}
ACCENT = "#2f7de1"


def _el(tag: str, attrs: dict[str, object], text: str | None = None) -> str:
    parts = " ".join(f'{k}="{escape(str(v), quote=True)}"' for k, v in attrs.items())
    if text is None:
        return f"<{tag} {parts}/>"
    return f"<{tag} {parts}>{escape(text)}</{tag}>"


def _dots(cx: float, cy: float, n: int, radius: float) -> list[str]:
    """Up to ``MAX_DOTS`` beans in rows of 4 centred on (cx, cy)."""
    out = []
    per_row = 4
    rows = (n + per_row - 1) // per_row
    step = radius * 0.42
    for i in range(n):
        r, c = divmod(i, per_row)
        in_row = min(per_row, n - r * per_row)
        x = cx + (c - (in_row - 1) / 2) * step
        y = cy + (r - (rows - 1) / 2) * step
        out.append(_el("circle", {"class": "bean", "cx": f"{x:.1f}", "cy": f"{y:.1f}", "r": f"{radius * 0.15:.1f}",
                                  "fill": "#5b3a1e"}))
    return out


def draw(game: CupsGame, size_px: int | None = None, hints: bool = True) -> str:
    """The SVG document of ``game`` (``size_px``: width in pixels; ``hints``: mark the tappable
    cups of the side to move)."""
    x = game.rules.cups
    width = CELL * (x + 2)
    height = STATUS + 2 * CELL + 50
    legal = set(game.legal_moves())
    mover = game.turn
    over = game.outcome()
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"'
        + (f' width="{size_px}" height="{round(size_px * height / width)}"' if size_px else "")
        + f' class="cups-board" data-variant="{escape(game.rules.token)}">',
        _el("rect", {"x": 0, "y": 0, "width": width, "height": height, "fill": "#efe4cf"}),
    ]
    if over is not None:
        status, state = f"Game over: {game.outcome_text(over)}", "over"
    else:
        status = f"{game.player_name(mover)} to move"
        if legal and all(not isinstance(m, (Drop, Sow)) for m in legal):
            status += " (no move: must pass)"
        state = "pass" if "pass" in status else "move"
    out.append(_el("text", {"class": "status", "data-state": state, "x": 12, "y": 30, "font-size": 22,
                            "font-family": "sans-serif"}, status))
    for player, row_y in ((NORTH, STATUS), (SOUTH, STATUS + CELL + 30)):
        name = game.player_name(player).lower()
        cy = row_y + CELL / 2
        for n in range(1, x + 1):
            col = n if player == SOUTH else x + 1 - n
            cx = col * CELL + CELL / 2
            beans = game.cups[player][n - 1]
            attrs: dict[str, object] = {"class": "cup", "data-player": name, "data-cup": n, "data-beans": beans,
                                        "cx": cx, "cy": cy, "r": CELL * 0.42, "fill": FILL[player],
                                        "stroke": "#6b5233", "stroke-width": 3}
            if beans > x + 1 - n:
                attrs["class"] = "cup blocked"
                attrs["stroke"] = "#b03a2e"
            if hints and player == mover and over is None:
                sow, drop = Sow(n), Drop(n)
                if sow in legal:
                    attrs["data-sow"] = f"s{n}"
                if drop in legal:
                    attrs["data-drop"] = f"d{n}"
                tap = attrs.get("data-sow") or attrs.get("data-drop")
                if tap:
                    attrs["data-move"] = tap
                    attrs["class"] = str(attrs["class"]) + " tappable"
                    if sow in legal:
                        attrs["stroke"] = ACCENT
            out.append(_el("circle", attrs))
            if beans <= MAX_DOTS:
                out.extend(_dots(cx, cy - 6, beans, CELL * 0.42))
            out.append(_el("text", {"class": "count", "x": cx, "y": cy + CELL * 0.34, "text-anchor": "middle",
                                    "font-size": 16, "font-family": "sans-serif"}, str(beans)))
            label_y = row_y - 4 if player == NORTH else row_y + CELL + 14
            out.append(_el("text", {"class": "label", "x": cx, "y": label_y, "text-anchor": "middle",
                                    "font-size": 11, "fill": "#6b5233", "font-family": "sans-serif"},
                           f"{name[0].upper()}{n}"))
        bowl_col = x + 1 if player == SOUTH else 0
        stock_col = 0 if player == SOUTH else x + 1
        bowl = game.bowls[player]
        bx = bowl_col * CELL + 6
        out.append(_el("rect", {"class": "bowl", "data-player": name, "data-bowl": name, "data-beans": bowl,
                                "x": bx, "y": row_y + 4, "width": CELL - 12, "height": CELL - 8, "rx": 30,
                                "fill": "#c9a97a", "stroke": "#6b5233", "stroke-width": 3}))
        out.append(_el("text", {"class": "count", "x": bx + (CELL - 12) / 2, "y": cy + 8, "text-anchor": "middle",
                                "font-size": 24, "font-family": "sans-serif"}, str(bowl)))
        stock = game.stocks[player]
        # the stock fills its cell: it is a tap target, as large as a cup
        sx = stock_col * CELL + 4
        stock_attrs: dict[str, object] = {"class": "stock", "data-player": name, "data-stock": name,
                                          "data-beans": stock, "x": sx, "y": row_y + 4, "width": CELL - 8,
                                          "height": CELL - 8, "rx": 8, "fill": "#e6d6b8", "stroke": "#8a7350",
                                          "stroke-width": 2}
        if hints and player == mover and over is None and Drop(1) in legal:
            stock_attrs["data-move"] = "d1"
            stock_attrs["class"] = "stock tappable"
        out.append(_el("rect", stock_attrs))
        out.append(_el("text", {"class": "count", "x": sx + (CELL - 8) / 2, "y": cy + 2, "text-anchor": "middle",
                                "font-size": 18, "font-family": "sans-serif"}, str(stock)))
        out.append(_el("text", {"class": "label stock-label", "x": sx + (CELL - 8) / 2, "y": cy + 20,
                                "text-anchor": "middle", "font-size": 11, "font-family": "sans-serif"}, "stock"))
    out.append("</svg>")
    return "\n".join(out)
