"""Position text and move text: the one-line formats that people and files use.

Position text (documented in ``docs/formats.md``)::

    gobblet .,.,.,./.,B3W4,.,./.,.,W4,./.,.,.,B4 b 4,3,3 4,4,2 3

fields: rule token, the ranks from the top rank down (``/`` between ranks, ``,`` between
squares; a square is ``.`` or its stack bottom to top, each piece a colour letter ``W``/``B``
and a size), the side to move (``w``/``b``), White's and Black's reserves (the top size of each
external stack, or each loose piece, largest first; ``-`` when empty) and the move number.

Move text: ``4c3`` enters a size 4 on c3, ``4xc3`` enters it gobbling what is there; ``4b1-c3``
moves the size 4 from b1 to c3, ``4b1xc3`` gobbles there (the size may be left out when
reading).  An ending is marked at the end: ``#`` the mover wins, ``?#`` the mover uncovered the
opponent's line and loses, ``=`` draw by repetition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..game import IllegalMove
from .rules import BLACK, COLOUR_NAMES, WHITE, Rules, RulesError
from .values import LINE, REPETITION, REVEAL, Move

if TYPE_CHECKING:  # the board imports this module; these names are for annotations only
    from .board import Board

COLOUR_LETTERS = "WB"
SIDE_LETTERS = "wb"


class NotationError(ValueError):
    """Position or move text that cannot be read; the message says what is wrong."""


# ------------------------------------------------------------------ positions
def format_position(board: Board) -> str:
    """The position text of ``board``'s current position."""
    n = board.rules.board
    ranks = []
    for rank in range(n - 1, -1, -1):
        squares = []
        for file in range(n):
            stack = board.stacks[rank * n + file]
            squares.append("".join(f"{COLOUR_LETTERS[p & 1]}{p >> 1}" for p in stack) or ".")
        ranks.append(",".join(squares))
    reserves = [",".join(map(str, board.reserve_tops(c))) or "-" for c in (WHITE, BLACK)]
    # one move number covers a move of each player, as in chess
    number = 1 + board.ply // 2
    return " ".join(
        [board.rules.token, "/".join(ranks), SIDE_LETTERS[board.turn], *reserves, str(number)]
    )


_PIECE = re.compile(r"([WB])([1-9])")


@dataclass(frozen=True)
class PositionSetup:
    """What a position text says, in the terms of ``Board.setup`` (which checks that it can
    occur: ``engine.gobblet.board.parse_position`` builds the board)."""

    rules: Rules
    stacks: list[list[tuple[int, int]]]
    reserves: list[list[int]]
    turn: int
    ply: int


def read_position(text: str) -> PositionSetup:
    """The contents a position text describes; raises ``NotationError`` naming the problem."""
    if not isinstance(text, str):
        raise NotationError("a position text must be a string")
    fields = text.split()
    if len(fields) != 6:
        raise NotationError(
            f"a position text has 6 fields (rules, ranks, side, White's reserve, Black's "
            f"reserve, move number); this one has {len(fields)}"
        )
    token, ranks_text, side, white_res, black_res, number_text = fields
    try:
        rules = Rules.parse(token)
    except RulesError as e:
        raise NotationError(str(e)) from None
    n = rules.board
    ranks = ranks_text.split("/")
    if len(ranks) != n:
        raise NotationError(f"{rules.name} has {n} ranks; the position text has {len(ranks)}")
    stacks: list[list[tuple[int, int]]] = [[] for _ in range(n * n)]
    for i, rank_text in enumerate(ranks):
        rank = n - 1 - i
        squares = rank_text.split(",")
        if len(squares) != n:
            raise NotationError(
                f"rank {rank + 1} has {len(squares)} squares; {rules.name} has {n} a rank"
            )
        for file, sq_text in enumerate(squares):
            if sq_text == ".":
                continue
            pieces = _PIECE.findall(sq_text)
            if not pieces or "".join(c + s for c, s in pieces) != sq_text:
                name = f"{'abcde'[file]}{rank + 1}"
                raise NotationError(
                    f"square {name}: {sq_text!r} is not '.' or pieces like W1B3 (colour W or B, "
                    f"then size)"
                )
            stacks[rank * n + file] = [(COLOUR_LETTERS.index(c), int(s)) for c, s in pieces]
    if side not in SIDE_LETTERS:
        raise NotationError(f"the side to move must be w or b, not {side!r}")
    turn = SIDE_LETTERS.index(side)
    reserves = [_parse_reserve(white_res, WHITE), _parse_reserve(black_res, BLACK)]
    if not _is_number(number_text) or int(number_text) < 1:
        raise NotationError(f"the move number must be a whole number from 1, not {number_text!r}")
    plies = 2 * (int(number_text) - 1) + (turn != rules.first)
    return PositionSetup(rules, stacks, reserves, turn, plies)


def _parse_reserve(text: str, colour: int) -> list[int]:
    if text == "-":
        return []
    parts = text.split(",")
    if not all(_is_number(p) for p in parts):
        raise NotationError(
            f"{COLOUR_NAMES[colour]}'s reserve {text!r} must be sizes separated by commas, or '-'"
        )
    return [int(p) for p in parts]


def _is_number(text: str) -> bool:
    """True for ASCII digits only (str.isdigit also accepts '²', which int() refuses)."""
    return text.isascii() and text.isdigit()


# ------------------------------------------------------------------ moves
_MOVE = re.compile(
    r"^(?P<size>[1-9])?(?P<frm>[a-e][1-9])?(?P<sep>[-x])?(?P<to>[a-e][1-9])(?P<end>#|\?#|=)?$"
)


def format_move(board: Board, move: Move) -> str:
    """Move text for ``move``, which must be legal in ``board``'s current position."""
    names = board.geo.names
    gobbles = bool(board.stacks[move.to])
    if move.frm is None:
        text = f"{move.size}{'x' if gobbles else ''}{names[move.to]}"
    else:
        text = f"{move.size}{names[move.frm]}{'x' if gobbles else '-'}{names[move.to]}"
    return text + _end_mark(board, move)


def format_moves(board: Board, moves: list[Move] | tuple[Move, ...]) -> list[str]:
    """Move text for each of ``moves`` played in turn from ``board``'s position (the board is
    left as it was)."""
    texts = []
    played = 0
    try:
        for move in moves:
            texts.append(format_move(board, move))
            board.push(move)
            played += 1
    finally:
        for _ in range(played):
            board.pop()
    return texts


def _end_mark(board: Board, move: Move) -> str:
    board.push(move)
    try:
        outcome = board.outcome()
    finally:
        board.pop()
    if outcome is None:
        return ""
    if outcome.reason == LINE:
        return "#"
    if outcome.reason == REVEAL:
        return "?#"
    if outcome.reason == REPETITION:
        return "="
    return ""


def parse_move(board: Board, text: str) -> Move:
    """The legal move that ``text`` names in ``board``'s position.

    Raises ``NotationError`` when the text cannot be read or names an unknown square, and
    ``IllegalMove`` (a ValueError too) saying why when the move is not allowed."""
    if not isinstance(text, str):
        raise NotationError("move text must be a string")
    m = _MOVE.match(text.strip())
    if not m:
        raise NotationError(
            f"{text!r} is not move text: write an entry as 4c3 (size, square) or a board move "
            f"as b1-c3 or 4b1-c3"
        )
    geo = board.geo
    try:
        to = geo.square(m["to"])
        frm = geo.square(m["frm"]) if m["frm"] else None
    except ValueError as e:
        raise NotationError(str(e)) from None
    if frm is None:
        if m["size"] is None:
            raise NotationError(f"{text!r}: an entry names the size, e.g. 4{m['to']}")
        if m["sep"] == "-":
            raise NotationError(f"{text!r}: an entry is written without '-', e.g. 4{m['to']}")
        size = int(m["size"])
    else:
        top = board.top(frm)
        if top is None:
            raise IllegalMove(f"{geo.names[frm]} is empty: there is no piece to move")
        size = int(m["size"]) if m["size"] else top[1]
    move = Move(size, to, frm)
    reason = board.illegal_reason(move)
    if reason is not None:
        raise IllegalMove(f"{text.strip()} is illegal: {reason}")
    if m["sep"] == "x" and not board.stacks[to]:
        raise IllegalMove(f"{text.strip()}: {geo.names[to]} is empty, there is nothing to gobble")
    if m["end"] is not None and m["end"] != _end_mark(board, move):
        actual = _end_mark(board, move) or "no mark (the game goes on)"
        raise IllegalMove(f"{text.strip()}: marked {m['end']!r} but the move gives {actual}")
    return move


# ------------------------------------------------------------------ text board
def render_text(board: Board, hidden: bool = True) -> str:
    """A text drawing of the board: each square's top, and with ``hidden`` how many pieces
    stand under it; then the reserves and whose move it is."""
    n = board.rules.board
    width = 6
    lines = ["   " + "".join(f"{f:<{width}}" for f in "abcde"[:n])]
    for rank in range(n - 1, -1, -1):
        cells = []
        for file in range(n):
            stack = board.stacks[rank * n + file]
            if not stack:
                cell = "."
            else:
                top = stack[-1]
                cell = f"{COLOUR_LETTERS[top & 1]}{top >> 1}"
                if hidden and len(stack) > 1:
                    cell += f"+{len(stack) - 1}"
            cells.append(f"{cell:<{width}}")
        lines.append(f"{rank + 1}  " + "".join(cells).rstrip())
    for c in (WHITE, BLACK):
        tops = board.reserve_tops(c)
        lines.append(f"{COLOUR_NAMES[c]} reserve: {' '.join(map(str, tops)) or '-'}")
    outcome = board.outcome()
    if outcome is None:
        lines.append(f"{COLOUR_NAMES[board.turn]} to move")
    else:
        lines.append(describe_outcome(board, outcome))
    return "\n".join(lines)


def describe_outcome(board: Board, outcome) -> str:
    """A sentence saying how the game ended."""
    names = board.geo.names
    line = "-".join(names[s] for s in outcome.line)
    if outcome.winner is None:
        return {
            "repetition": "Draw by threefold repetition",
            "agreement": "Draw by agreement",
        }.get(outcome.reason, "Draw")
    winner = COLOUR_NAMES[outcome.winner]
    loser = COLOUR_NAMES[1 - outcome.winner]
    return {
        "line": f"{winner} wins with the line {line}",
        "reveal": f"{winner} wins: {loser} uncovered {winner}'s line {line}",
        "no-moves": f"{winner} wins: {loser} has no legal move",
        "resignation": f"{winner} wins: {loser} resigned",
        "touch-move": f"{winner} wins: {loser} lifted a piece that cannot move",
        "time": f"{winner} wins on time: {loser}'s clock ran out",
    }.get(outcome.reason, f"{winner} wins")
