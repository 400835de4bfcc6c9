"""Why a suggested Gobblet move is good, in the game's words.

A hint's search (or the exact Gobblet Jr. table) says *which* move is best and by how much; this
module says *why*, from the tactical facts of the position (``tactics``): the line the move
completes, the opponent's line it blocks, the piece it gobbles that the opponent needs, the two
threats the opponent cannot both stop, the threat it makes, the piece that must stay where it
is because lifting it would uncover the opponent's line; for a quiet move, the plan the search
expects (its next move's tactic); and what goes wrong after the most tempting alternative
(from the line the search or the table found against it).

Everything here is pure: the board is left as it was (moves are pushed and popped), nothing is
searched, and the players are named as the caller says (``names``: the players' names, or the
colours ``White``/``Black`` by default).  Lines are named as players say them: ``row 2``,
``the a-file``, ``the a1-d4 diagonal`` (with the squares when a line is shorter than the board,
as on a 5x5 board with lines of 4: ``row 2 (b2-e2)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .board import Board
from .geometry import squares_of
from .tactics import LOSES, WINS, completing_squares, move_result, threat_lines, winning_moves
from .values import Move

Names = tuple[str, str]

# Search scores (evaluation units: an open line one top short is worth ``evaluation.THREAT``,
# 60) and the words a player reads for them, from the mover's side.  Below the first bound
# the position is "about even"; a forced result is said as "wins in N" by the caller.
SCORE_WORDS: tuple[tuple[int, str, str], ...] = (
    (180, "winning", "losing"),
    (60, "clearly better", "clearly worse"),
    (20, "a bit better", "a bit worse"),
)
EVEN = "about even"
# how much worse than the best an alternative must score to be called a mistake
TEMPTING_MARGIN = 40


@dataclass(frozen=True)
class Alternative:
    """The most tempting other move and what goes wrong after it: ``line`` is the play the
    search (or table) expects after it, the alternative first, and ``value`` its value in words
    for the player to move (``clearly worse``, ``loses in 4``)."""

    move: Move
    line: tuple[Move, ...]
    value: str


def names_of(board: Board, names: Sequence[str] | None = None) -> Names:
    """The two players' names: ``names`` when given (a player's name, or empty for the
    colour), else the colours."""
    out = [board.player_name(0), board.player_name(1)]
    for i, name in enumerate(names or ()):
        if i < 2 and isinstance(name, str) and name.strip():
            out[i] = name.strip()
    return out[0], out[1]


def score_words(score: int) -> str:
    """A search score (not a forced result) in words, from the mover's side: ``about even``,
    ``a bit better``, ``clearly worse``, ``winning`` ..."""
    for bound, good, bad in SCORE_WORDS:
        if score >= bound:
            return good
        if score <= -bound:
            return bad
    return EVEN


# ------------------------------------------------------------------ names of things
def line_name(board: Board, line: int, article: bool = True) -> str:
    """A line bitboard as players name it: ``row 2``, ``the a-file``, ``the a1-d4 diagonal``,
    with its squares when it is shorter than the board (``row 2 (b2-e2)``); without
    ``article`` for a possessive (``Black's a-file``)."""
    geo = board.geo
    n = geo.size
    squares = geo.line_squares(line)
    if not squares:
        return "a line"
    first, last = squares[0], squares[-1]
    span = f"{geo.names[first]}\u2013{geo.names[last]}"
    the = "the " if article else ""
    full = len(squares) == n
    if all(s // n == first // n for s in squares):
        name = f"row {first // n + 1}"
    elif all(s % n == first % n for s in squares):
        name = f"{the}{geo.names[first][0]}-file"
    else:
        return f"{the}{span} diagonal"
    return name if full else f"{name} ({span})"


def square_list(board: Board, squares: Sequence[int]) -> str:
    """Square names joined as players say them: ``d1``, ``d1 and d4``, ``a1, b2 and c3``."""
    names = sorted({board.geo.names[s] for s in squares})
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}"


# ------------------------------------------------------------------ the facts of one move
def wins_now(board: Board, move: Move, names: Names) -> str | None:
    """``wins: 4 in row 2`` when ``move`` shows the mover's line (and not the opponent's)."""
    if move_result(board, move) != WINS:
        return None
    line = _line_after(board, move, board.turn)
    return f"wins: {board.rules.line} in {line_name(board, line)}" if line else "wins at once"


def loses_now(board: Board, move: Move, names: Names) -> str | None:
    """``uncovering b2 gives Black row 2`` when ``move`` lifts a piece off the opponent's line."""
    if move.frm is None or move_result(board, move) != LOSES:
        return None
    line = _line_uncovered(board, move.frm, board.turn)
    what = line_name(board, line) if line else "a line"
    return f"uncovering {board.geo.names[move.frm]} gives {names[1 - board.turn]} {what}"


def blocks(board: Board, move: Move, names: Names) -> str | None:
    """``blocks Black's a-file (3 shown)`` when the opponent threatened to win at once and
    ``move`` covers the open square of that line (and leaves them no win)."""
    opp = 1 - board.turn
    if not winning_moves(board, opp) or not _stops_all_wins(board, move):
        return None
    for line in threat_lines(board, opp):
        if line >> move.to & 1 and not board.tops[opp] >> move.to & 1:
            shown = board.rules.line - 1
            return f"blocks {names[opp]}'s {line_name(board, line, False)} ({shown} shown)"
    return None


def gobbles(board: Board, move: Move, names: Names) -> str | None:
    """What ``move`` gobbles: ``gobbles the 3 on c2 that Black needs for row 2`` when the piece
    is part of the opponent's threat (or the piece they would win with), else ``gobbles Black's
    2 on c2``."""
    top = board.top(move.to)
    opp = 1 - board.turn
    if top is None or top[0] != opp:
        return None
    where = board.geo.names[move.to]
    needed = [line for line in threat_lines(board, opp) if line >> move.to & 1]
    if needed and _stops_all_wins(board, move):
        return f"gobbles the {top[1]} on {where} that {names[opp]} needs for {line_name(board, needed[0])}"
    if any(m.frm == move.to for m in winning_moves(board, opp)) and _stops_all_wins(board, move):
        return f"gobbles the {top[1]} on {where} that {names[opp]} needs to win"
    return f"gobbles {names[opp]}'s {top[1]} on {where}"


def unstoppable(board: Board, move: Move, names: Names) -> str | None:
    """``after this Black cannot stop d1 and d4`` when after ``move`` the mover threatens to win
    and every reply of the opponent still leaves a win (a double threat, or a threat they have
    no piece to block)."""
    me = board.turn
    if move_result(board, move) != 0:
        return None
    board.push(move)
    try:
        if board.decided is not None or winning_moves(board) or not winning_moves(board, me):
            return None
        targets = {m.to for m in winning_moves(board, me)}
        for reply in board.legal_moves():
            board.push(reply)
            try:
                if board.decided is not None:
                    if board.decided.winner != me:
                        return None
                    continue
                if not winning_moves(board):
                    return None
            finally:
                board.pop()
    finally:
        board.pop()
    return f"after this {names[1 - me]} cannot stop {square_list(board, sorted(targets))}"


def threatens(board: Board, move: Move, names: Names) -> str | None:
    """``threatens 4 in row 2 next move`` when ``move`` makes a new line one top short whose
    open square the mover could fill next move."""
    me = board.turn
    before = completing_squares(board, me)
    board.push(move)
    try:
        if board.decided is not None:
            return None
        winning = {m.to for m in winning_moves(board, me)} if completing_squares(board, me) & ~before else set()
        for line in threat_lines(board, me):
            if line >> move.to & 1 and any(line >> sq & 1 for sq in winning):
                return f"threatens {board.rules.line} in {line_name(board, line)} next move"
    finally:
        board.pop()
    return None


def reveal_danger(board: Board, move: Move, names: Names) -> str | None:
    """``keep b2 covered: uncovering b2 would give Black row 2``: a piece of the mover's that covers an opponent
    piece and must stay (lifting it shows the opponent's line), when ``move`` leaves it there
    and the danger is still there after ``move``."""
    me = board.turn
    if move.frm is not None and move_result(board, move) == LOSES:
        return None
    danger = [sq for sq in squares_of(board.tops[me])
              if sq not in (move.frm, move.to) and _line_uncovered(board, sq, me)]
    if not danger:
        return None
    board.push(move)
    try:  # a danger the move itself removes (it blocks that line) is not worth a word
        if board.decided is not None:
            return None
        for sq in danger:
            line = _line_uncovered(board, sq, me)
            if line:
                name = board.geo.names[sq]
                return f"keep {name} covered: uncovering {name} would give {names[1 - me]} {line_name(board, line)}"
    finally:
        board.pop()
    return None


def facts(board: Board, move: Move, names: Sequence[str] | None = None) -> list[str]:
    """What ``move`` does, most important first, each a short clause: it wins, it cannot be
    stopped, it blocks, it gobbles, it threatens; then a piece that must stay put."""
    who = names_of(board, names)
    win = wins_now(board, move, who)
    if win:
        return [win]
    lose = loses_now(board, move, who)
    if lose:
        return [lose]
    out = []
    for fact in (unstoppable, blocks, gobbles):
        text = fact(board, move, who)
        if text:
            out.append(text)
    if not any(t.startswith("after this") for t in out):
        threat = threatens(board, move, who)
        if threat:
            out.append(threat)
    danger = reveal_danger(board, move, who)
    if danger:
        out.append(danger)
    return out


def plan(board: Board, line: Sequence[Move], names: Sequence[str] | None = None) -> str | None:
    """What the search expects to follow ``line`` (the suggested move, the opponent's answer,
    the mover's next move), said when that next move has a tactic: ``the plan: after Black's
    3b2, 4c3 threatens 4 in row 3 next move``; None when it has none or the line is short."""
    if len(line) < 3:
        return None
    who = names_of(board, names)
    opp = 1 - board.turn
    pushed = 0
    try:
        for move in line[:2]:
            if board.decided is not None or not board.is_legal(move):
                return None
            if pushed == 1:
                reply = board.move_text(move).rstrip("#?=")
            board.push(move)
            pushed += 1
        nxt = line[2]
        if board.decided is not None or not board.is_legal(nxt):
            return None
        text = board.move_text(nxt).rstrip("#?=")
        win = wins_now(board, nxt, who)
        trap = None if win else unstoppable(board, nxt, who)
        if trap:
            what = f"{text}, and {trap.replace('after this ', '')}"
        else:
            fact = win or threatens(board, nxt, who) or gobbles(board, nxt, who)
            if not fact:
                return None
            what = f"{text} {fact}"
        return f"the plan: after {who[opp]}'s {reply}, {what}"
    finally:
        for _ in range(pushed):
            board.pop()


# ------------------------------------------------------------------ the tempting alternative
def looks_tempting(board: Board, move: Move) -> bool:
    """Whether ``move`` catches the eye: it gobbles an opponent piece or makes a threat."""
    top = board.top(move.to)
    if top is not None and top[0] != board.turn:
        return True
    return threatens(board, move, names_of(board)) is not None


def pick_tempting(board: Board, best: Move, ranked: Sequence[tuple[Move, int | None, bool]]) -> Move | None:
    """The alternative to warn about, from ``ranked`` (move, score for the mover or None for an
    exact value, whether it is clearly worse than ``best``), best first: the first clearly
    worse move that catches the eye, else the first clearly worse move among the two next
    best; None when the next moves are about as good."""
    worse = [move for move, _, bad in ranked if bad and move != best]
    for move in worse:
        if looks_tempting(board, move):
            return move
    second = [move for move, _, _ in ranked if move != best][:2]
    for move in worse:
        if move in second:
            return move
    return None


def refutation(board: Board, alt: Alternative, names: Sequence[str] | None = None) -> str:
    """What goes wrong after the alternative ``alt``, from the first reply of its line:
    ``not 4b2-b3: uncovering b2 would give Black row 2``, ``not 4a2: Black answers 4d4 and
    wins: 4 in row 4``, ``not 4c3: Black answers 4d4, and White cannot stop c4 and d1``,
    ``not 3d1: Black answers 4c1xd1 (gobbles ...) and White is a bit worse``, ``not 2c1:
    after Black's 4b2 White is clearly worse``."""
    who = names_of(board, names)
    me = board.turn
    opp = 1 - me
    text = board.move_text(alt.move).rstrip("#?=")
    lose = loses_now(board, alt.move, who)
    if lose:
        return f"not {text}: {lose.replace('gives', 'would give', 1)}"
    plain = f"not {text}: {who[me]} would be {alt.value}" if _is_words(alt.value) else f"not {text}: it {alt.value}"
    if len(alt.line) < 2 or alt.line[0] != alt.move:
        return plain
    board.push(alt.move)
    try:
        reply = alt.line[1]
        if board.decided is not None or not board.is_legal(reply):
            return plain
        reply_text = board.move_text(reply).rstrip("#?=")  # the words say how it ends
        win = wins_now(board, reply, who)
        if win:
            return f"not {text}: {who[opp]} answers {reply_text} and {win}"
        trap = unstoppable(board, reply, who)
        if trap:
            return f"not {text}: {who[opp]} answers {reply_text}, and {trap.replace('after this ', '')}"
        gobble = gobbles(board, reply, who)
        threat = threatens(board, reply, who)
        what = gobble or threat
        after = f"{who[me]} is {alt.value}" if _is_words(alt.value) else f"{who[me]} {alt.value}"
        if what:
            return f"not {text}: {who[opp]} answers {reply_text} ({what}) and {after}"
        return f"not {text}: after {who[opp]}'s {reply_text} {after}"
    finally:
        board.pop()


def _is_words(value: str) -> bool:
    """True for a value said as a state (``clearly worse``), not a result (``loses in 4``)."""
    return not (value.startswith("wins in") or value.startswith("loses in") or value.startswith("draw"))


def explain(board: Board, move: Move, names: Sequence[str] | None = None,
            alternative: Alternative | None = None, lead: str = "", line: Sequence[Move] = ()) -> str:
    """The whole reason for suggesting ``move``: ``lead`` (a value sentence the caller makes,
    e.g. ``the only move that wins``) and the move's facts joined with ``; `` (for a quiet move,
    the plan the search's expected ``line`` shows), then what goes wrong after ``alternative``
    as its own sentence."""
    parts = [lead] if lead else []
    said = facts(board, move, names)
    if not said and line and line[0] == move:
        planned = plan(board, line, names)
        said = [planned] if planned else []
    parts += said
    text = "; ".join(parts)
    if alternative is not None and alternative.move != move:
        warning = refutation(board, alternative, names)
        text = f"{text}. {_capital(warning)}" if text else warning
    return text  # lower case first, as the page shows it after the value: "wins in 3 · blocks ..."


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


# ------------------------------------------------------------------ helpers
def _line_after(board: Board, move: Move, colour: int) -> int:
    """The line ``colour`` shows after ``move`` (0 when none)."""
    board.push(move)
    try:
        squares = board.showing_line(colour)
    finally:
        board.pop()
    line = 0
    for sq in squares:
        line |= 1 << sq
    return line


def _line_uncovered(board: Board, square: int, me: int) -> int:
    """The line of ``me``'s opponent that lifting ``me``'s top off ``square`` would show (0:
    none)."""
    stack = board.stacks[square]
    if len(stack) < 2 or stack[-1] & 1 != me or stack[-2] & 1 == me:
        return 0
    theirs = board.tops[1 - me] | 1 << square
    for line in board.geo.lines_through[square]:
        if theirs & line == line:
            return line
    return 0


def _stops_all_wins(board: Board, move: Move) -> bool:
    """True when after ``move`` the opponent has no win at once (and the move did not lose)."""
    board.push(move)
    try:
        return board.decided is None and not winning_moves(board)
    finally:
        board.pop()
