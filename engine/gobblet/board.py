"""The game state of a Gobblet-family game: full stacks, reserves, legal moves and outcomes.

The board keeps every stack bottom to top, hidden pieces included, and bitboards of the visible
tops (per colour and per size) from which moves are generated.  ``push``/``pop`` change the
state incrementally, including a Zobrist hash of the exact position (stacks, reserves, side to
move) that repetition and the search use.

A piece is an int ``size * 2 + colour``.  Reserves are kept as counts: with stacked reserves
``reserve[c][h]`` is the number of external stacks of height ``h`` (their top has size ``h``),
with free pieces it is the number of loose pieces of size ``h``.  Either way a piece of size
``s`` can enter when ``reserve[c][s] > 0``, and equal pieces are interchangeable.

The board also keeps ``buried``, White's buried balance: the number of Black pieces hidden under
White tops less the number of White pieces hidden under Black tops (the evaluation's buried
term, which the search reads at every leaf, kept up to date by ``push`` and ``pop``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..game import GameOver, IllegalMove, Outcome
from .bitboard_tables import first_line_table, hot_lines_table
from .geometry import Geometry, geometry, squares_of
from .rules import (
    BLACK,
    COLOUR_NAMES,
    ENTRY_DEFENSIVE,
    ENTRY_EMPTY,
    ENTRY_FREE,
    ENTRY_STORER,
    GOBBLET,
    RESERVE_STACKS,
    WHITE,
    Rules,
)
from .notation import (
    NotationError,
    describe_outcome,
    format_move,
    format_position,
    parse_move,
    read_position,
    render_text,
)
from .svg import board_svg
from .values import (
    LINE,
    AGREEMENT,
    NO_MOVES,
    REPETITION,
    RESIGNATION,
    REVEAL,
    TIME_FORFEIT,
    TOUCH_MOVE,
    Move,
    PositionError,
    Touch,
)


@dataclass(frozen=True)
class _Zobrist:
    piece: tuple[tuple[int, ...], ...]  # [square][piece code]
    reserve: tuple[tuple[tuple[int, ...], ...], ...]  # [colour][size][count]
    turn: int


@cache
def _zobrist(squares: int, sizes: int, per_size: int) -> _Zobrist:
    rng = random.Random(f"cupboard-zobrist-{squares}-{sizes}-{per_size}")
    bits = 64
    piece = tuple(tuple(rng.getrandbits(bits) for _ in range(2 * sizes + 2)) for _ in range(squares))
    reserve = tuple(
        tuple(tuple(rng.getrandbits(bits) for _ in range(per_size + 1)) for _ in range(sizes + 1))
        for _ in range(2)
    )
    return _Zobrist(piece, reserve, rng.getrandbits(bits))


def piece_code(colour: int, size: int) -> int:
    """The int that stands for a piece of ``colour`` and ``size``."""
    return size * 2 + colour


def other(colour: int) -> int:
    """The opponent of ``colour``."""
    return 1 - colour


class Board:
    """A position of a Gobblet-family game with its move history.

    ``push`` plays a move without checking it (use ``legal_moves`` or ``play``); ``pop`` takes
    back the last move or action and restores everything exactly, hash included.  It meets the
    game contract of ``engine.game.Game``.
    """

    family = "gobblet"

    def __init__(self, rules: Rules = GOBBLET) -> None:
        self._use_rules(rules)
        reserves = []
        for _ in (WHITE, BLACK):
            counts = [0] * (rules.sizes + 1)
            if self.stacked:
                counts[rules.sizes] = rules.per_size
            else:
                for s in range(1, rules.sizes + 1):
                    counts[s] = rules.per_size
            reserves.append(counts)
        self._set_state([[] for _ in range(rules.squares)], reserves, rules.first, 0)

    # ----------------------------------------------------------------- set-up
    @classmethod
    def setup(
        cls,
        rules: Rules,
        stacks: Sequence[Sequence[tuple[int, int]]],
        reserves: Sequence[Sequence[int]],
        turn: int,
        ply: int = 0,
    ) -> "Board":
        """A board set up from explicit contents, validated.

        ``stacks`` has one entry per square (index as in ``geometry``), each a bottom-to-top
        sequence of ``(colour, size)``.  ``reserves[c]`` lists what colour ``c`` can still
        enter: the top size of each external stack (stacked reserves) or the size of each loose
        piece (free reserves).  ``ply`` is the number of moves played before this position.
        Raises ``PositionError`` naming the first problem found.
        """
        board = cls.__new__(cls)
        board._use_rules(rules)
        codes, counts = _validate_setup(rules, board.geo, stacks, reserves, turn, ply)
        board._set_state(codes, counts, turn, ply)
        return board

    def _use_rules(self, rules: Rules) -> None:
        """Set ``rules`` and the (shared) tables that follow from them: the first attributes of
        every board, set in one order (see ``copy``)."""
        self.rules = rules
        self.geo: Geometry = geometry(rules.board, rules.line)
        self.stacked = rules.reserve == RESERVE_STACKS
        self._z = _zobrist(rules.squares, rules.sizes, rules.per_size)
        self._first_line = first_line_table(rules.board, rules.line)

    def _set_state(self, stacks: list[list[int]], reserves: list[list[int]], turn: int, ply: int) -> None:
        sizes = self.rules.sizes
        self.stacks: list[list[int]] = stacks
        self.reserve: list[list[int]] = reserves
        self.turn = turn
        self.start_ply = ply
        self.tops = [0, 0]
        self.size_bb = [0] * (sizes + 1)
        h = self._z.turn if turn == BLACK else 0
        for sq, stack in enumerate(stacks):
            for p in stack:
                h ^= self._z.piece[sq][p]
            if stack:
                top = stack[-1]
                self.tops[top & 1] |= 1 << sq
                self.size_bb[top >> 1] |= 1 << sq
        for c in (WHITE, BLACK):
            for s in range(1, sizes + 1):
                h ^= self._z.reserve[c][s][reserves[c][s]]
        self.hash = h
        self.buried = buried_balance(stacks)
        self._undo: list[tuple] = []
        # Read-only for callers (the search reads them in its hot loop, hence plain attributes):
        # ``seen`` counts each position hash in this board's history; ``decided`` is the
        # ending decided by lines, repetition or an action (a no-move loss needs the moves
        # counted: see ``outcome``), None while the game goes on.
        self.seen: dict[int, int] = {h: 1}
        self.decided: Outcome | None = None
        self.decided = self._line_outcome(other(turn))

    # Copying and pickling set the attributes one by one and never touch ``__dict__``: reading
    # it makes CPython (3.11) keep the object's attributes in a dict of their own from then on,
    # which its specialised attribute reads cannot use, and the search reads its board's
    # attributes millions of times (each about four times slower that way).

    def copy(self) -> "Board":
        """An independent copy of the position and its history."""
        new = Board.__new__(Board)
        new._use_rules(self.rules)
        new.stacks = [list(s) for s in self.stacks]
        new.reserve = [list(r) for r in self.reserve]
        new.turn = self.turn
        new.start_ply = self.start_ply
        new.tops = list(self.tops)
        new.size_bb = list(self.size_bb)
        new.hash = self.hash
        new.buried = self.buried
        new._undo = list(self._undo)
        new.seen = dict(self.seen)
        new.decided = self.decided
        return new

    def __getstate__(self) -> dict:
        """The state ``pickle`` keeps (a search's helper processes get the position this way):
        the rules and the position, not the tables that follow from the rules."""
        return {"rules": self.rules, **{name: getattr(self, name) for name in _STATE}}

    def __setstate__(self, state: dict) -> None:
        self._use_rules(state["rules"])
        for name in _STATE:
            setattr(self, name, state[name])

    # ----------------------------------------------------------------- queries
    @property
    def ply(self) -> int:
        """Moves played since the start of the game (set-up plies included)."""
        return self.start_ply + sum(1 for u in self._undo if u[0] is not None)

    @property
    def history_length(self) -> int:
        """How many moves and ending actions have been pushed on this board."""
        return len(self._undo)

    @property
    def can_pop(self) -> bool:
        """True when there is a move or an ending action to take back."""
        return bool(self._undo)

    @property
    def move_stack(self) -> list[Move]:
        """The moves pushed on this board, oldest first."""
        return [u[0] for u in self._undo if u[0] is not None]

    def top(self, square: int) -> tuple[int, int] | None:
        """The visible piece on ``square`` as ``(colour, size)``, or None when empty."""
        stack = self.stacks[square]
        return (stack[-1] & 1, stack[-1] >> 1) if stack else None

    def stack(self, square: int) -> list[tuple[int, int]]:
        """The whole stack on ``square``, bottom to top, as ``(colour, size)`` pairs."""
        return [(p & 1, p >> 1) for p in self.stacks[square]]

    def reserve_tops(self, colour: int) -> list[int]:
        """What ``colour`` can still enter, largest first: each external stack's top size, or
        each loose piece's size."""
        counts = self.reserve[colour]
        return [s for s in range(self.rules.sizes, 0, -1) for _ in range(counts[s])]

    def reserve_pieces(self, colour: int) -> list[int]:
        """Sizes of every piece ``colour`` has off the board, hidden ones in stacks included."""
        counts = self.reserve[colour]
        if not self.stacked:
            return self.reserve_tops(colour)
        out = []
        for h in range(self.rules.sizes, 0, -1):
            for _ in range(counts[h]):
                out.extend(range(h, 0, -1))
        return sorted(out, reverse=True)

    def key(self) -> tuple:
        """The exact position (every stack, both reserves, side to move) as a hashable value."""
        return (tuple(tuple(s) for s in self.stacks), tuple(map(tuple, self.reserve)), self.turn)

    def repetitions(self) -> int:
        """How many times the current position has occurred in this board's history."""
        return self.seen.get(self.hash, 0)

    def showing_line(self, colour: int) -> tuple[int, ...]:
        """The squares of a line that ``colour`` shows, or () when it shows none."""
        bb = self.tops[colour]
        for line in self.geo.lines:
            if bb & line == line:
                return self.geo.line_squares(line)
        return ()

    def _line_outcome(self, mover: int) -> Outcome | None:
        """The result of the position just after ``mover`` moved, judged on lines only."""
        opponent = other(mover)
        line = self.showing_line(opponent)
        if line:
            return Outcome(opponent, REVEAL, line)
        line = self.showing_line(mover)
        if line:
            return Outcome(mover, LINE, line)
        return None

    def outcome(self) -> Outcome | None:
        """How the game has ended, or None while it goes on.

        Lines are judged after the whole move (the opponent's line wins first), then threefold
        repetition, then a player to move with no legal move loses.
        """
        if self.decided is not None:
            return self.decided
        if self.count_legal_moves() == 0:
            return Outcome(other(self.turn), NO_MOVES)
        return None

    def is_over(self) -> bool:
        """True when the game has ended."""
        return self.outcome() is not None

    # ----------------------------------------------------------------- moves
    def below_masks(self) -> list[int]:
        """``below[s]``: squares whose top is smaller than size ``s`` (empty squares included)."""
        m = self.geo.full ^ (self.tops[0] | self.tops[1])
        below = [m]
        for bb in self.size_bb[1:]:
            below.append(m)
            m |= bb
        return below

    def _hot_lines(self, opponent: int) -> int:
        """Squares on lines in which ``opponent`` shows all but one of the tops (or all)."""
        return hot_lines_table(self.rules.board, self.rules.line)[self.tops[opponent]]

    def entry_targets(self, size: int, below: list[int], mover: int) -> int:
        """Squares where ``mover`` may enter a piece of ``size`` (``below`` from
        ``below_masks``)."""
        entry = self.rules.entry
        if entry == ENTRY_FREE:
            return below[size]
        empty = below[1]
        if entry == ENTRY_EMPTY:
            return empty
        hot = self._hot_lines(other(mover))
        if not hot:
            return empty
        if entry == ENTRY_DEFENSIVE:
            return empty | (below[size] & hot & self.tops[other(mover)])
        assert entry == ENTRY_STORER
        return empty | (below[size] & hot)

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move (none once the game is over)."""
        if self.decided is not None:
            return []
        c = self.turn
        below = self.below_masks()
        moves: list[Move] = []
        counts = self.reserve[c]
        for s in range(self.rules.sizes, 0, -1):
            if counts[s]:
                for to in squares_of(self.entry_targets(s, below, c)):
                    moves.append(Move(s, to, None))
        stacks = self.stacks
        for frm in squares_of(self.tops[c]):
            s = stacks[frm][-1] >> 1
            for to in squares_of(below[s] & ~(1 << frm)):
                moves.append(Move(s, to, frm))
        return moves

    def count_legal_moves(self) -> int:
        """The number of legal moves, counted without building them (for perft)."""
        if self.decided is not None:
            return 0
        c = self.turn
        below = self.below_masks()
        n = 0
        counts = self.reserve[c]
        for s in range(self.rules.sizes, 0, -1):
            if counts[s]:
                n += self.entry_targets(s, below, c).bit_count()
        stacks = self.stacks
        for frm in squares_of(self.tops[c]):
            # the source square itself is never "below" its own top, so no exclusion needed
            n += below[stacks[frm][-1] >> 1].bit_count()
        return n

    def is_legal(self, move: Move) -> bool:
        """True when ``move`` is legal now."""
        return self.illegal_reason(move) is None

    def illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` is illegal now, in words a player understands; None when it is legal."""
        if self.outcome() is not None:
            return "the game is over"
        size, to, frm = move
        names = self.geo.names
        mover = COLOUR_NAMES[self.turn]
        if not 1 <= size <= self.rules.sizes:
            return f"there is no size {size} in this game (sizes 1 to {self.rules.sizes})"
        if not 0 <= to < self.rules.squares or (frm is not None and not 0 <= frm < self.rules.squares):
            return "the square is not on the board"
        below = self.below_masks()
        dest_top = self.top(to)
        if frm is None:
            if not self.reserve[self.turn][size]:
                if self.stacked:
                    return f"{mover} has no external stack with a size {size} on top"
                return f"{mover} has no size {size} left in reserve"
            if self.entry_targets(size, below, self.turn) >> to & 1:
                return None
            if dest_top is None:
                return None  # unreachable: empty squares are always entry targets
            if dest_top[1] >= size:
                return f"{names[to]} holds a size {dest_top[1]}, not smaller than {size}"
            if self.rules.entry == ENTRY_EMPTY:
                return "a piece from the reserve must go on an empty square"
            if self.rules.entry == ENTRY_DEFENSIVE and dest_top[0] == self.turn:
                return "a piece from the reserve may not gobble your own piece"
            opp = COLOUR_NAMES[other(self.turn)]
            if self.rules.entry == ENTRY_DEFENSIVE:
                return (
                    f"a piece from the reserve may gobble only an opponent piece in a line where "
                    f"{opp} shows {self.rules.line - 1}"
                )
            return (
                f"a piece from the reserve may go on a non-empty square only on a line where "
                f"{opp} shows {self.rules.line - 1}"
            )
        src = self.top(frm)
        if src is None:
            return f"{names[frm]} is empty"
        if src[0] != self.turn:
            return f"the top of {names[frm]} is {COLOUR_NAMES[src[0]]}'s, not {mover}'s"
        if src[1] != size:
            return f"the top of {names[frm]} is a size {src[1]}, not {size}"
        if frm == to:
            return "a piece must move to a different square"
        if not below[size] >> to & 1:
            return f"{names[to]} holds a size {dest_top[1]}, not smaller than {size}"
        return None

    def push(self, move: Move) -> None:
        """Play ``move`` without checking it (it must come from ``legal_moves``)."""
        # (the search pushes and pops millions of times: everything is read once into locals)
        size, to, frm = move
        c = self.turn
        p = size * 2 + c
        z = self._z
        zp = z.piece
        old = self.hash
        h = old ^ z.turn
        tops = self.tops
        size_bb = self.size_bb
        stacks = self.stacks
        # the change of the mover's buried balance: a stack it leaves topped by the other side
        # hides all that remains of it under theirs, one it covers a top of theirs on hides
        # all of it under the mover's (pieces under a top of their own colour do not count)
        buried = 0
        if frm is None:
            counts = self.reserve[c]
            zr = z.reserve[c]
            k = counts[size]
            h ^= zr[size][k] ^ zr[size][k - 1]
            counts[size] = k - 1
            if self.stacked and size > 1:
                k = counts[size - 1]
                h ^= zr[size - 1][k] ^ zr[size - 1][k + 1]
                counts[size - 1] = k + 1
        else:
            src = stacks[frm]
            src.pop()
            bit = 1 << frm
            tops[c] ^= bit
            size_bb[size] ^= bit
            h ^= zp[frm][p]
            if src:
                q = src[-1]
                tops[q & 1] |= bit
                size_bb[q >> 1] |= bit
                if q & 1 != c:
                    buried = -len(src)
        dest = stacks[to]
        bit = 1 << to
        if dest:
            q = dest[-1]
            tops[q & 1] ^= bit
            size_bb[q >> 1] ^= bit
            if q & 1 != c:
                buried += len(dest)
        if buried:
            self.buried += buried if c == WHITE else -buried
        dest.append(p)
        tops[c] |= bit
        size_bb[size] |= bit
        h ^= zp[to][p]
        self._undo.append((move, old))
        self.hash = h
        self.turn = 1 - c
        seen = self.seen
        n = seen.get(h, 0) + 1
        seen[h] = n
        if self.decided is None:
            # Before the move nobody showed a line, so a new line of the mover runs through
            # ``to`` and a new line of the opponent through ``frm`` (an uncovered piece): the
            # first line either shows (``bitboard_tables.first_line_table``, in the order of
            # geo.lines, which is the order _line_outcome reports in) is such a line.
            result = None
            if frm is not None and src and src[-1] & 1 != c:
                line = self._first_line[tops[1 - c]]
                if line:
                    result = Outcome(1 - c, REVEAL, self.geo.line_squares(line))
            if result is None:
                line = self._first_line[tops[c]]
                if line:
                    result = Outcome(c, LINE, self.geo.line_squares(line))
        else:
            result = self._line_outcome(c)
        # (``rules.repetitions`` is at least 2; ``n`` is almost always 1, and the rules' attributes
        # are slow to read once ``Rules.token``, a cached property, has given them a dict)
        if result is None and n > 1 and n >= self.rules.repetitions:
            result = Outcome(None, REPETITION)
        self.decided = result

    def pop(self) -> Move | None:
        """Take back the last move (returned) or the last ending action (returns None)."""
        move, old_hash = self._undo.pop()
        self.decided = None
        if move is None:  # an action (resignation, agreement, touch-move loss)
            return None  # actions are only taken while the game goes on
        seen = self.seen
        h = self.hash
        n = seen[h] - 1
        if n:
            seen[h] = n
        else:
            del seen[h]
        size, to, frm = move
        c = 1 - self.turn
        p = size * 2 + c
        tops = self.tops
        size_bb = self.size_bb
        stacks = self.stacks
        dest = stacks[to]
        dest.pop()
        bit = 1 << to
        tops[c] ^= bit
        size_bb[size] ^= bit
        buried = 0  # the change ``push`` made to the mover's buried balance, taken back
        if dest:
            q = dest[-1]
            tops[q & 1] |= bit
            size_bb[q >> 1] |= bit
            if q & 1 != c:
                buried = len(dest)
        if frm is None:
            counts = self.reserve[c]
            counts[size] += 1
            if self.stacked and size > 1:
                counts[size - 1] -= 1
        else:
            src = stacks[frm]
            bit = 1 << frm
            if src:
                q = src[-1]
                tops[q & 1] ^= bit
                size_bb[q >> 1] ^= bit
                if q & 1 != c:
                    buried -= len(src)
            src.append(p)
            tops[c] |= bit
            size_bb[size] |= bit
        if buried:
            self.buried -= buried if c == WHITE else -buried
        self.hash = old_hash
        self.turn = c
        return move

    def play(self, move: Move) -> Outcome | None:
        """Play ``move`` after checking it; raises ``IllegalMove`` saying why it is illegal.
        Returns the outcome if the move ended the game."""
        if self.outcome() is not None:
            raise GameOver("the game is over")
        reason = self.illegal_reason(move)
        if reason is not None:
            raise IllegalMove(reason)
        self.push(move)
        return self.outcome()

    # ----------------------------------------------------------------- actions
    def _end(self, outcome: Outcome) -> Outcome:
        if self.outcome() is not None:
            raise GameOver("the game is over")
        self._undo.append((None, self.hash))
        self.decided = outcome
        return outcome

    def resign(self, colour: int | None = None) -> Outcome:
        """``colour`` (default: the player to move) resigns; the other player wins."""
        loser = self.turn if colour is None else colour
        return self._end(Outcome(other(loser), RESIGNATION))

    def agree_draw(self) -> Outcome:
        """Both players agree to a draw."""
        return self._end(Outcome(None, AGREEMENT))

    def lose_on_time(self, colour: int) -> Outcome:
        """``colour``'s clock ran out; the other player wins."""
        return self._end(Outcome(other(colour), TIME_FORFEIT))

    def touch(self, square: int) -> Touch:
        """The touch-move verdict when the player to move lifts the top piece of ``square``."""
        names = self.geo.names
        if self.outcome() is not None:
            return Touch(square, (), "the game is over")
        top = self.top(square)
        if top is None:
            return Touch(square, (), f"{names[square]} is empty: there is nothing to lift")
        if top[0] != self.turn:
            return Touch(
                square,
                (),
                f"{COLOUR_NAMES[self.turn]} touched {COLOUR_NAMES[top[0]]}'s piece on {names[square]}",
            )
        return Touch(square, tuple(m for m in self.legal_moves() if m.frm == square))

    def forfeit_touch(self, square: int) -> Outcome:
        """End the game because the player to move lifted a piece that cannot move."""
        if not self.rules.touch_move:
            raise IllegalMove("touch-move is off in this game: a lifted piece need not be moved")
        verdict = self.touch(square)
        if not verdict.loses:
            raise IllegalMove(
                verdict.violation or f"the piece on {self.geo.names[square]} has legal moves"
            )
        return self._end(Outcome(other(self.turn), TOUCH_MOVE))

    # ----------------------------------------------------------------- text
    @classmethod
    def from_text(cls, text: str) -> "Board":
        """The board of a position text (see ``engine.gobblet.notation``)."""
        return parse_position(text)

    def text(self) -> str:
        """The position text of the current position (see ``engine.gobblet.notation``)."""
        return format_position(self)

    def move_text(self, move: Move) -> str:
        """``move`` written as move text for the current position."""
        return format_move(self, move)

    def parse_move(self, text: str) -> Move:
        """The legal move that ``text`` names in the current position."""
        return parse_move(self, text)

    def __str__(self) -> str:
        return render_text(self)

    def __repr__(self) -> str:
        return f"Board({self.text()!r})"

    def svg(self, **options: Any) -> str:
        """An SVG drawing of the position (options as ``engine.gobblet.svg.board_svg``)."""
        return board_svg(self, **options)

    def player_name(self, player: int) -> str:
        """The name of ``player`` (0 or 1): "White" or "Black"."""
        return COLOUR_NAMES[player]

    # ----------------------------------------------------------------- for pages
    def outcome_text(self, outcome: Outcome) -> str:
        """A sentence saying how the game ended (``notation.describe_outcome``)."""
        return describe_outcome(self, outcome)

    def square_names(self, squares: Iterable[int]) -> list[str]:
        """The names of ``squares`` (``a1``, ...), e.g. of a winning line."""
        return [self.geo.names[s] for s in squares]

    def move_details(self, move: Move) -> dict[str, Any]:
        """A move as a page sees it: size, from (None: the reserve), to and its move text."""
        names = self.geo.names
        return {"size": move.size, "from": None if move.frm is None else names[move.frm],
                "to": names[move.to], "text": self.move_text(move)}

    def move_from_details(self, size: int, to: str, frm: str | None) -> Move:
        """The move of a piece of ``size`` to the square named ``to``, from the square named
        ``frm`` (None: the reserve), as a page sends it; ValueError naming a bad square."""
        return Move(size, self.geo.square(to), None if frm is None else self.geo.square(frm))

    def hidden_pieces(self) -> list[dict[str, Any]]:
        """The pieces under the top of each stack, as a page lists them: per square (by name)
        the hidden pieces, bottom first, each with its colour ("white"/"black") and size."""
        out = []
        for sq in range(self.rules.squares):
            below = self.stack(sq)[:-1]
            if below:
                out.append({"square": self.geo.names[sq],
                            "pieces": [{"colour": COLOUR_NAMES[c].lower(), "size": size} for c, size in below]})
        return out

    def page_details(self, lifted: int | None = None, highlight: Iterable[int | str] = ()) -> dict[str, Any]:
        """What a page needs beyond the contract to let a player pick a piece and a square:
        the board's shape, the reserves, the legal moves and the last move by square, the
        winning line, and the drawings (with hidden pieces, both ways up).  ``lifted`` is a
        square the camera saw lifted (touch-move), ``highlight`` squares to outline."""
        rules = self.rules
        names = self.geo.names
        stack = self.move_stack
        last = stack[-1] if stack else None
        outcome = self.outcome()
        drawing = {"hidden": True, "last_move": last, "size_px": 360, "lifted": lifted,
                   "highlight": tuple(highlight)}
        return {
            "input": "pieces",
            "sides": {"white": "light", "black": "dark"},  # how the page tells the players apart
            "hidden_pieces": True,  # the drawing can show what each stack hides
            "rules": {"board": rules.board, "sizes": rules.sizes, "line": rules.line, "stacked": self.stacked},
            "reserves": {COLOUR_NAMES[c].lower(): self.reserve_tops(c) for c in (0, 1)},
            "last_move": None if last is None else {
                "size": last.size, "from": None if last.frm is None else names[last.frm], "to": names[last.to]},
            "legal": [self.move_details(m) for m in self.legal_moves()],
            "line": [] if outcome is None else self.square_names(outcome.line),
            "lifted": None if lifted is None else names[lifted],
            "svg": board_svg(self, **drawing),
            "svg_flipped": board_svg(self, flip=True, **drawing),
        }


def parse_position(text: str) -> Board:
    """The board described by a position text (``engine.gobblet.notation``); raises
    ``NotationError`` naming the problem, an impossible position included."""
    setup = read_position(text)
    try:
        return Board.setup(setup.rules, setup.stacks, setup.reserves, setup.turn, setup.ply)
    except PositionError as e:
        raise NotationError(f"impossible position: {e}") from None


def _new_game(rules: Rules) -> Board:
    """The start position of a game under ``rules``."""
    return Board(rules)


# ``Rules.new_game`` (the game contract) makes a board: it is attached here because the rules
# module sits below the board and must not import it
Rules.new_game = _new_game  # type: ignore[attr-defined]


def _validate_setup(
    rules: Rules,
    geo: Geometry,
    stacks: Sequence[Sequence[tuple[int, int]]],
    reserves: Sequence[Sequence[int]],
    turn: int,
    ply: int,
) -> tuple[list[list[int]], list[list[int]]]:
    if turn not in (WHITE, BLACK):
        raise PositionError("the side to move must be White or Black")
    if ply < 0:
        raise PositionError("the move number must be positive")
    if (ply % 2 == 0) != (turn == rules.first):
        raise PositionError(
            f"after {ply} moves it is {COLOUR_NAMES[turn ^ 1]}'s turn, not {COLOUR_NAMES[turn]}'s"
        )
    if len(stacks) != rules.squares:
        raise PositionError(f"expected {rules.squares} squares, got {len(stacks)}")
    if len(reserves) != 2:
        raise PositionError("expected a reserve for each of the two players")
    on_board = [[0] * (rules.sizes + 1) for _ in range(2)]
    codes: list[list[int]] = []
    for sq, stack in enumerate(stacks):
        last = 0
        codes.append([])
        for colour, size in stack:
            if colour not in (WHITE, BLACK):
                raise PositionError(f"{geo.names[sq]}: unknown colour {colour!r}")
            if not 1 <= size <= rules.sizes:
                raise PositionError(f"{geo.names[sq]}: size {size} is not 1 to {rules.sizes}")
            if size <= last:
                raise PositionError(
                    f"{geo.names[sq]}: sizes must increase up a stack, but a size {size} "
                    f"stands on a size {last}"
                )
            last = size
            on_board[colour][size] += 1
            codes[-1].append(size * 2 + colour)
    counts: list[list[int]] = []
    for colour in (WHITE, BLACK):
        name = COLOUR_NAMES[colour]
        tops = list(reserves[colour])
        for s in tops:
            if not isinstance(s, int) or not 1 <= s <= rules.sizes:
                raise PositionError(f"{name}'s reserve: size {s!r} is not 1 to {rules.sizes}")
        c = [0] * (rules.sizes + 1)
        for s in tops:
            c[s] += 1
        if rules.reserve == RESERVE_STACKS:
            if len(tops) > rules.per_size:
                raise PositionError(
                    f"{name} has {len(tops)} external stacks; this game has {rules.per_size}"
                )
            in_reserve = [sum(1 for h in tops if h >= s) for s in range(rules.sizes + 1)]
        else:
            in_reserve = c
        for s in range(1, rules.sizes + 1):
            total = on_board[colour][s] + in_reserve[s]
            if total != rules.per_size:
                where = "external stacks" if rules.reserve == RESERVE_STACKS else "reserve"
                raise PositionError(
                    f"{name} has {total} pieces of size {s} ({on_board[colour][s]} on the board, "
                    f"{in_reserve[s]} in the {where}); each player has {rules.per_size}"
                )
        counts.append(c)
    return codes, counts


# the position's attributes (beyond the rules') that ``Board.__getstate__`` keeps, in the order
# ``Board._set_state`` sets them
_STATE = ("stacks", "reserve", "turn", "start_ply", "tops", "size_bb", "hash", "buried", "_undo", "seen", "decided")


def buried_balance(stacks: Sequence[Sequence[int]]) -> int:
    """White's buried balance (``Board.buried``) counted from the stacks (piece codes)."""
    balance = 0
    for stack in stacks:
        if len(stack) > 1:
            top_colour = stack[-1] & 1
            for p in stack[:-1]:
                if p & 1 != top_colour:
                    balance += 1 if top_colour == WHITE else -1
    return balance


def perft(board: Board, depth: int, bulk: bool = True) -> int:
    """The number of legal move sequences of ``depth`` plies from ``board`` (games that end
    early stop counting there).  With ``bulk`` the last ply is counted without being played;
    without it every leaf is pushed and popped (to measure make/unmake)."""
    if depth <= 0:
        return 1
    if depth == 1 and bulk:
        return board.count_legal_moves()
    total = 0
    for move in board.legal_moves():
        board.push(move)
        total += perft(board, depth - 1, bulk)
        board.pop()
    return total


def replay(rules: Rules, moves: Iterable[Move]) -> Board:
    """A board with ``moves`` played from the start, each checked."""
    board = Board(rules)
    for move in moves:
        board.play(move)
    return board
