"""Move suggestions for Cups: the best move, its value in beans, ranked alternatives and a
reason in words, at the same levels as Gobblet's hints (``beginner`` ... ``full``).

``full`` answers exactly whenever the proving search (``solve.ExactSolver``) finishes within the
time: the value is then the final bowl difference with perfect play ("wins by 6 with perfect
play").  Otherwise, and at the lower levels, the depth-limited search scores the moves and the
hint says how deep it looked and whether that is proven.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..game import Alternative, Hint, level_name
from .game import CupsGame
from .moves import Drop, Pass, Sow
from .rules import CupsRules
from .solve import PROVE_RATE, ExactSolver, MoveValue, key_width, search_moves


@dataclass(frozen=True)
class Level:
    """A playing strength: search ``depth`` (None: exact or as deep as time allows) and
    ``noise``, the margin in beans within which a move is picked at random."""

    name: str
    depth: int | None
    noise: float = 0.0


LEVELS: dict[str, Level] = {
    "beginner": Level("beginner", 1, 1.5),
    "casual": Level("casual", 2),
    "club": Level("club", 4),
    "strong": Level("strong", 8),
    "full": Level("full", None),
}


def level(name: str | int) -> Level:
    """Cups' level called ``name`` (a shared level name or its number 1-5, ``engine.game``)."""
    return LEVELS[level_name(name)]


# one solver (and its table) per rule set, kept between hints of a game
_SOLVERS: dict[str, ExactSolver] = {}
_COLD: set[str] = set()  # tokens whose solver started without a prepared table


def table_path(rules: CupsRules) -> Path:
    """Where ``prepare`` keeps the prepared table of ``rules``: ``$CUPBOARD_CACHE`` or
    ``~/.cache/cupboard``, file ``cups-<token>.npz``."""
    env = os.environ.get("CUPBOARD_CACHE")
    base = Path(env) if env else Path.home() / ".cache" / "cupboard"
    safe = rules.token.replace("[", "-").replace("]", "").replace(",", "-").replace("=", "")
    return base / f"{safe}.npz"


def solver_for(rules: CupsRules) -> ExactSolver | None:
    """The exact solver for ``rules`` (loading a prepared table if there is one, also when it
    appears later: a server prepares it in the background), or None when its positions do not
    fit the solver."""
    if key_width(rules) is None:
        return None
    solver = _SOLVERS.get(rules.token)
    if solver is None or rules.token in _COLD:
        path = table_path(rules)
        if path.exists():
            try:
                solver = ExactSolver.load(path, rules)
                _COLD.discard(rules.token)
            except (ValueError, OSError, KeyError):
                pass  # unreadable, half-written or from an older layout: stay cold (prepare rebuilds it)
        if solver is None:
            solver = ExactSolver(rules)
            _COLD.add(rules.token)
        _SOLVERS[rules.token] = solver
    return solver


def prepare(rules: CupsRules, path: Path | None = None) -> ExactSolver:
    """Prove the start position of ``rules`` and every first move exactly, and save the table
    so that hints early in the game start warm (never called inside a web request)."""
    solver = ExactSolver(rules, 22)
    solver.move_values(rules.new_game())
    path = path or table_path(rules)
    path.parent.mkdir(parents=True, exist_ok=True)
    solver.save(path)
    _SOLVERS[rules.token] = solver
    _COLD.discard(rules.token)
    return solver


def hint(game: CupsGame, strength: str | int = "full", seconds: float = 1.0,
         rng: random.Random | None = None, names: Sequence[str] | None = None) -> Hint:
    """The suggested move for the side to move of ``game`` at ``strength`` within about
    ``seconds``; ``names`` are the players' names for the reason's words (default: South and
    North).  Raises ValueError when the game is over."""
    lvl = level(strength)
    game = game.copy()  # the search plays moves on it: the caller's game stays untouched
    moves = game.legal_moves()
    if not moves:
        raise ValueError("the game is over: there is no move to suggest")
    start = time.perf_counter()
    ranked: list[MoveValue] | None = None
    exact = False
    depth = 0
    nodes = 0
    if lvl.depth is None:
        solver = solver_for(game.rules)
        if solver is not None:
            before = int(solver.stats[1])
            # big positions rarely finish: keep half of the time for the search then
            share = 1.0 if sum(game.stocks) <= 24 else 0.5
            ranked = solver.move_values(game, budget=max(10_000, int(share * seconds * PROVE_RATE)))
            nodes = int(solver.stats[1]) - before
            exact = ranked is not None
        if ranked is None:
            left = max(0.05, seconds - (time.perf_counter() - start))
            result = search_moves(game, left)
            ranked, exact, depth, nodes = list(result.moves), result.exact, result.depth, nodes + result.nodes
    else:
        result = search_moves(game, seconds, fixed_depth=lvl.depth)
        ranked, exact, depth, nodes = list(result.moves), result.exact, result.depth, result.nodes
    chosen = ranked[0]
    if lvl.noise:
        rng = rng or random.Random()
        near = [mv for mv in ranked if mv.value >= ranked[0].value - lvl.noise]
        chosen = rng.choice(near)
        ranked = [chosen] + [mv for mv in ranked if mv is not chosen]
    # plain Python numbers throughout: the search hands back numpy's, which JSON cannot write
    alternatives = tuple(
        Alternative(mv.move, game.move_text(mv.move), value_words(mv, depth), _score(mv)) for mv in ranked)
    return Hint(
        move=chosen.move,
        text=game.move_text(chosen.move),
        value=value_words(chosen, depth),
        reason=reason(game, chosen, ranked, names),
        alternatives=alternatives,
        level=lvl.name,
        exact=bool(exact),
        score=None if exact else _score(chosen),
        depth=int(depth),
        nodes=int(nodes),
        seconds=float(time.perf_counter() - start),
    )


def _score(mv: MoveValue) -> int | None:
    return None if mv.exact else int(round(mv.value * 4))


def _beans(n: float) -> str:
    n = abs(n)
    text = f"{n:g}" if n != int(n) else str(int(n))
    return f"{text} bean{'' if n == 1 else 's'}"


def value_words(mv: MoveValue, depth: int = 0) -> str:
    """A move's value for its player: ``wins by 6 with perfect play``, ``level with perfect
    play``, or for estimates ``about 1.5 beans ahead (searched 12 plies, not proven)``."""
    v = mv.value
    if mv.exact:
        if v == 0:
            return "level with perfect play"
        return f"{'wins' if v > 0 else 'loses'} by {_beans(v)} with perfect play"
    if v == 0:
        where = "about level"
    else:
        where = f"about {_beans(v)} {'ahead' if v > 0 else 'behind'}"
    return f"{where} (searched {depth} pl{'y' if depth == 1 else 'ies'}, not proven)"


def reason(game: CupsGame, chosen: MoveValue, ranked: list[MoveValue],
           names: Sequence[str] | None = None) -> str:
    """Why ``chosen``, in words: what it takes or sows, the cups it blocks or readies, what the
    opponent can take next, and how it compares with the next best move; the opponent is
    called by ``names`` when given."""
    me = game.turn
    x = game.rules.cups
    opp_name = game.player_name(1 - me)
    if names and len(names) == 2 and isinstance(names[1 - me], str) and names[1 - me].strip():
        opp_name = names[1 - me].strip()
    move = chosen.move
    parts = []
    if isinstance(move, Pass):
        return f"{game.player_name(me)} has no drop and no sow, so must pass"
    if isinstance(move, Drop):
        taken = game.captures(move)
        if taken:
            parts.append(f"captures the {_beans(taken)} opposite: the last bean lands in your empty cup "
                         f"{move.k} and takes {opp_name}'s cup {x + 1 - move.k}")
        else:
            parts.append(f"drops {_beans(move.k)} into your cups 1-{move.k}" if move.k > 1
                         else "drops 1 bean into your cup 1")
    elif isinstance(move, Sow):
        parts.append(f"sows cup {move.cup}: its last bean lands in your bowl, one more for you")
    blocked_before = _blocked(game, me)
    game._play(move)
    try:
        blocked_after = _blocked(game, me)
        ready = [n for n in range(1, x + 1) if game.cups[me][n - 1] == x + 1 - n]
        threat = _best_capture(game, 1 - me) if game.turn != me else None
    finally:
        game.pop()
    new_blocked = sorted(set(blocked_after) - set(blocked_before))
    if new_blocked:
        parts.append("it blocks your cup" + _cup_list(new_blocked))
    elif isinstance(move, Drop):
        avoided = _blocks_avoided(game, move)
        if avoided:
            parts.append(f"a bigger drop would block your cup{_cup_list(avoided)}")
    if ready:
        parts.append(f"cup{_cup_list(ready)} then hold{'s' if len(ready) == 1 else ''} exactly "
                     "the beans to sow into the bowl")
    if threat:
        k, beans = threat
        parts.append(f"{opp_name} can then take {_beans(beans)} with d{k}x (from your cup {x + 1 - k})")
    elif threat is not None:
        parts.append(f"{opp_name} then has no capture")
    if len(ranked) > 1:
        diff = chosen.value - ranked[1].value
        if diff > 0:
            parts.append(f"{_beans(diff)} better than {game.move_text(ranked[1].move)}")
        elif diff == 0 and chosen is ranked[0]:
            parts.append(f"as good as {game.move_text(ranked[1].move)}")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def _cup_list(cups: list[int]) -> str:
    if len(cups) == 1:
        return f" {cups[0]}"
    return "s " + ", ".join(str(c) for c in cups[:-1]) + f" and {cups[-1]}"


def _blocked(game: CupsGame, player: int) -> list[int]:
    """The cups of ``player`` holding more than their distance to the bowl (never sowable)."""
    x = game.rules.cups
    return [n for n in range(1, x + 1) if game.cups[player][n - 1] > x + 1 - n]


def _blocks_avoided(game: CupsGame, move: Drop) -> list[int]:
    """Cups a bigger drop than ``move`` would block (that ``move`` leaves unblocked)."""
    x = game.rules.cups
    row = game.cups[game.turn]
    return [n for n in range(move.k + 1, min(x, game.stocks[game.turn]) + 1)
            if row[n - 1] + 1 > x + 1 - n and row[n - 1] <= x + 1 - n]


def _best_capture(game: CupsGame, player: int) -> tuple[int, int] | None:
    """The biggest capture ``player`` (to move) has: (beans dropped, beans taken), or None."""
    best = None
    x = game.rules.cups
    for k in range(1, min(x, game.stocks[player]) + 1):
        if game.cups[player][k - 1] == 0:
            beans = game.cups[1 - player][x - k]
            if beans and (best is None or beans > best[1]):
                best = (k, beans)
    return best


def main(argv: list[str] | None = None) -> int:
    """``python -m engine.cups.hints prepare [TOKEN]``: build and save the prepared table of a
    rule set (default ``cups[cups=3]``) and print its figures."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "prepare" or len(args) > 2:
        print("usage: python -m engine.cups.hints prepare [TOKEN]", file=sys.stderr)
        return 2
    from .rules import CupsRulesError, variant

    try:
        rules = variant(args[1] if len(args) > 1 else "cups[cups=3]")
    except CupsRulesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if key_width(rules) is None:
        print(f"error: {rules.token}: positions do not fit the exact solver's key", file=sys.stderr)
        return 2
    start = time.perf_counter()
    solver = prepare(rules)
    print(f"{rules.token}: start value {solver.value(rules.new_game()):+d} with perfect play; "
          f"{solver.entries:,d} entries, {solver.nbytes / 2**20:.0f} MiB, "
          f"{time.perf_counter() - start:.1f} s -> {table_path(rules)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
