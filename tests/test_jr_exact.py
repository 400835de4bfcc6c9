"""The exact Gobblet Jr. table (``engine.gobblet.jr.build`` solves it backwards, ``engine.gobblet.jr.exact``
reads it): the values the issue names, agreement with brute force over the rules engine, draws,
the file's checks and the fallback without numba.

The full table is the user's cached one when it is there (``cupboard prepare``), else it is
built once per test session into the tests' cache (``conftest.exact_jr_table``): about 60 s of
CPU (1-2 min of wall time on a busy 2-core machine), under 1 GB of memory.  The builder itself
is also checked on the fullest layer alone (about 10 s)."""

import random
import sys
import time

import numpy as np
import pytest

import engine.gobblet.jr
from engine.gobblet import GOBBLET_JR, Board
from engine.gobblet.jr import exact as jr_exact
from engine.gobblet.jr import model as jr
from engine.gobblet.jr import table as jr_table
from engine.gobblet.jr.exact import ExactTable, TableError
from engine.gobblet.jr.index import index
from engine.gobblet.jr.solve import DRAW, LOSS, WIN, JrSolver, JrValue

CORNERS_AND_CENTRE = {0, 2, 4, 6, 8}
EDGES = {1, 3, 5, 7}


@pytest.fixture(scope="session")
def exact(exact_jr_table) -> ExactTable:
    return exact_jr_table


@pytest.fixture(scope="session")
def fullest(tmp_path_factory) -> ExactTable:
    """A partial table: the layer with every piece on the board."""
    return jr_table.build_exact(tmp_path_factory.getbasetemp() / "jr-exact-12.bin", min_pieces=12)


def start_state() -> int:
    return jr.from_board(Board(GOBBLET_JR))


def to_board(state: int) -> Board:
    """The rules engine's board of a compact position (White to move, no history)."""
    m1, m2, m3, o1, o2, o3 = jr.fields(state)
    stacks = []
    for sq in range(9):
        stack = []
        for size, mine, theirs in ((1, m1, o1), (2, m2, o2), (3, m3, o3)):
            if mine >> sq & 1:
                stack.append((0, size))
            elif theirs >> sq & 1:
                stack.append((1, size))
        stacks.append(stack)
    reserves = [[s for s, bb in ((1, m1), (2, m2), (3, m3)) for _ in range(2 - bb.bit_count())],
                [s for s, bb in ((1, o1), (2, o2), (3, o3)) for _ in range(2 - bb.bit_count())]]
    return Board.setup(GOBBLET_JR, stacks, reserves, 0)


def ended(board: Board) -> JrValue | None:
    """Just after a move: its value for the player who made it when the rules end the game
    there (a win or a loss in 1), else None."""
    outcome = board.outcome()
    if outcome is None or outcome.winner is None:
        return None
    return JrValue(WIN if outcome.winner != board.turn else LOSS, 1)


def move_values(board: Board, table: ExactTable) -> list[JrValue]:
    """The value for the mover of each legal move by the rules engine: a win or loss in 1 when
    the rules end the game, else the table's value of the position after it."""
    out = []
    for move in board.legal_moves():
        board.push(move)
        end = ended(board)
        out.append(end if end is not None else table.value(jr.from_board(board)).after_move())
        board.pop()
    return out


def negamax(values: list[JrValue]) -> JrValue:
    """The value of a position from the values of its moves for the mover."""
    wins = [v.plies for v in values if v.result == WIN]
    if wins:
        return JrValue(WIN, min(wins))
    if all(v.result == LOSS for v in values):
        return JrValue(LOSS, max(v.plies for v in values))
    return JrValue(DRAW, None, True)


def sample_positions(rng: random.Random, count: int, table: ExactTable) -> list[int]:
    """Game positions the table covers, from random slots (every layer, any value)."""
    ix = index()
    out = []
    while len(out) < count:
        slot = rng.randrange(len(table.codes))
        if table.codes[slot] != jr_exact.NOT_A_POSITION:
            out.append(ix.position(slot))
    return out


# ------------------------------------------------------------------ the values the issue names
def test_start_is_a_first_player_win_in_13_with_a_large_opening(exact):
    root, moves = exact.solver().analyse(start_state())
    assert root == JrValue(WIN, 13)
    assert moves[0].optimal and moves[0].move[0] == 3
    optimal = {(m.move[0], m.move[1]) for m in moves if m.optimal}
    assert optimal == {(3, sq) for sq in CORNERS_AND_CENTRE} | {(1, sq) for sq in EDGES}


def test_value_of_each_first_move(exact):
    got = {}
    for move, child, _ in jr.children(start_state()):
        got[move[:2]] = exact.value(child).after_move()
    for sq in range(9):
        corner_or_centre = sq in CORNERS_AND_CENTRE
        assert got[3, sq] == JrValue(WIN, 13 if corner_or_centre else 15)
        assert got[1, sq] == JrValue(WIN, 15 if corner_or_centre else 13)
        assert got[2, sq].result == LOSS  # medium openings lose
    assert {got[2, sq].plies for sq in range(9)} == {12, 14}


def test_hint_solver_answers_fast_from_the_table(exact):
    solver = exact.solver()
    rng = random.Random(4)
    slowest = 0.0
    for state in sample_positions(rng, 200, exact):
        t = time.perf_counter()
        root, moves = solver.analyse(state)
        slowest = max(slowest, time.perf_counter() - t)
        assert root.proven and any(m.optimal for m in moves)
        assert all(m.value is not None and m.value.proven for m in moves)
    assert slowest < 0.5


# ------------------------------------------------------------------ independent checks
def brute(board: Board, depth: int) -> JrValue | None:
    """The forced result within ``depth`` plies by plain minimax over the rules engine (no
    table, no symmetry, no memo): fastest win, slowest loss, None when nothing is forced."""
    values = []
    for move in board.legal_moves():
        board.push(move)
        if (end := ended(board)) is not None:
            values.append(end)
        elif depth > 1:
            sub = brute(board, depth - 1)
            values.append(sub.after_move() if sub else JrValue(DRAW))
        else:
            values.append(JrValue(DRAW))
        board.pop()
    v = negamax(values)
    return None if v.result == DRAW else v


def test_agrees_with_brute_force_minimax_on_short_results(exact):
    rng = random.Random(11)
    seen = {WIN: 0, LOSS: 0, None: 0}
    for state in sample_positions(rng, 120, exact):
        board = to_board(state)
        truth = brute(board, 3)
        v = exact.value(state)
        assert v is not None
        expected = v if v.result != DRAW and v.plies <= 3 else None
        assert truth == expected, board.text()
        seen[truth.result if truth else None] += 1
    assert all(seen.values())


def test_every_value_follows_from_the_moves_by_the_rules_engine(exact):
    """Bellman consistency with the rules engine's moves and outcomes: held by every position,
    it makes the values exact (wins and losses by induction on the distance, draws as what
    is left), so a sample of every layer and value kind checks the solve."""
    rng = random.Random(5)
    kinds = {WIN: 0, LOSS: 0, DRAW: 0}
    for state in sample_positions(rng, 300, exact):
        board = to_board(state)
        v = exact.value(state)
        assert v == negamax(move_values(board, exact)), board.text()
        kinds[v.result] += 1
    assert kinds[WIN] and kinds[LOSS]


def draw_position(exact: ExactTable) -> int:
    """A reachable draw: the first one a fixed random game walks into."""
    rng = random.Random(2)
    for _ in range(2000):
        board = Board(GOBBLET_JR)
        for _ in range(40):
            if board.outcome() is not None:
                break
            state = jr.from_board(board)
            if exact.value(state).result == DRAW:
                return state
            board.push(rng.choice(board.legal_moves()))
    raise AssertionError("no draw found")


def test_a_draw_is_reported_as_a_draw(exact):
    state = draw_position(exact)
    board = to_board(state)
    root, moves = exact.solver().analyse(state)
    assert root == JrValue(DRAW, None, True)
    keeping = [m for m in moves if m.optimal]
    assert keeping and all(m.value.result == DRAW for m in keeping)
    assert all(m.value.result == LOSS for m in moves if not m.optimal)  # no move wins
    # the bounded search of the old solver finds no forced line for either side either
    assert JrSolver().value(state, max_plies=7).result == DRAW
    # and the position and the ones after it are consistent with the rules engine's moves
    assert negamax(move_values(board, exact)) == root
    for move in board.legal_moves():
        board.push(move)
        if board.outcome() is None:
            assert exact.value(jr.from_board(board)) == negamax(move_values(board.copy(), exact))
        board.pop()


def test_old_search_agrees_on_deeper_values(exact):
    rng = random.Random(8)
    solver = JrSolver()
    checked = 0
    for state in sample_positions(rng, 60, exact):
        v = exact.value(state)
        got = solver.value(state, max_plies=7)
        if v.result != DRAW and v.plies <= 7:
            assert got == v
            checked += 1
        else:
            assert got.result == DRAW
        solver.clear_if_larger(200_000)
    assert checked


# ------------------------------------------------------------------ the builder, the file
def test_a_partial_build_is_the_prefix_of_the_full_table(exact, fullest):
    assert fullest.min_pieces == 12 and len(fullest.codes) == index().prefix(12)
    assert np.array_equal(fullest.codes, exact.codes[: len(fullest.codes)])
    full = to_board(sample_positions(random.Random(1), 1, fullest)[0])
    assert fullest.covers(jr.from_board(full)) and not fullest.covers(start_state())
    assert fullest.value(start_state()) is None
    # a solver with the partial table searches what the table does not cover
    assert fullest.solver().value(start_state(), max_plies=3).result == DRAW


def test_the_file_is_checked_on_load(fullest, tmp_path, capsys):
    raw = fullest.path.read_bytes()
    bad = tmp_path / "flipped.bin"
    flipped = bytearray(raw)
    flipped[-1000] ^= 1
    bad.write_bytes(flipped)
    with pytest.raises(TableError, match="damaged"):
        jr_exact.load(bad)
    short = tmp_path / "short.bin"
    short.write_bytes(raw[:-1])
    with pytest.raises(TableError, match="truncated"):
        jr_exact.load(short)
    other = tmp_path / "other.bin"
    other.write_bytes(b"CUPJRX1\n" + (9).to_bytes(4, "little") + raw[12:])
    with pytest.raises(TableError, match="another version"):
        jr_exact.load(other)
    assert jr_table.get_table(bad, build_if_missing=False) is None
    assert "damaged" in capsys.readouterr().err


def test_without_numba_the_horizon_table_is_built_instead(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "numba", None)  # ``import numba`` now fails
    monkeypatch.delitem(sys.modules, "engine.gobblet.jr.build", raising=False)
    monkeypatch.delattr(engine.gobblet.jr, "build", raising=False)
    path = tmp_path / "table.bin"
    table = jr_table.build_any(path, plies=0, horizon=3)
    assert isinstance(table, jr_table.JrTable) and len(table.values) == 1
    assert "numba is not installed" in capsys.readouterr().err
    assert isinstance(jr_table.load(path), jr_table.JrTable)
