"""Gobblet Jr.: the compact model, the exact solver against brute force, the cached table."""

import random

import pytest

from engine.gobblet import GOBBLET_JR, Board, perft
from engine.gobblet.jr import model as jr
from engine.gobblet.jr.solve import DRAW, LOSS, WIN, JrSolver, JrValue, decode, encode
from engine.gobblet.jr.table import build, load, save


def random_board(rng: random.Random, plies: int) -> Board:
    board = Board(GOBBLET_JR)
    for _ in range(plies):
        if board.outcome() is not None:
            break
        board.push(rng.choice(board.legal_moves()))
    return board


def test_compact_perft_matches_the_rules():
    s = jr.from_board(Board(GOBBLET_JR))

    def count(state, depth):
        if depth == 1:
            return len(jr.children(state))
        return sum(count(c, depth - 1) if r == jr.ONGOING else 0 for _, c, r in jr.children(state))

    assert [count(s, d) for d in (1, 2, 3)] == [27, 675, 20313]
    assert perft(Board(GOBBLET_JR), 3) == 20313


def test_children_agree_with_board_moves_and_outcomes():
    rng = random.Random(7)
    for _ in range(60):
        board = random_board(rng, rng.randint(0, 25))
        if board.outcome() is not None:
            continue
        s = jr.from_board(board)
        compact = {jr.to_move(m): (c, r) for m, c, r in jr.children(s)}
        assert set(compact) == set(board.legal_moves())
        for move, (child, result) in compact.items():
            board.push(move)
            outcome = board.outcome()
            expected = jr.ONGOING
            if outcome is not None and outcome.winner is not None:
                expected = jr.WINS if outcome.winner != board.turn else jr.LOSES
            if outcome is None or outcome.reason != "repetition":
                assert result == expected
                assert child == jr.from_board(board)
            board.pop()


def test_canonical_key_is_shared_by_symmetric_positions():
    rng = random.Random(3)
    for _ in range(30):
        s = jr.from_board(random_board(rng, rng.randint(1, 12)))
        key = jr.canonical(s)
        assert all(jr.canonical(jr.symmetry_of(s, k)) == key for k in range(8))
        assert key == min(jr.symmetry_of(s, k) for k in range(8))


def brute(board: Board, depth: int) -> tuple[str, int] | None:
    """Exact result within ``depth`` plies by plain minimax over the rules engine (no memo, no
    symmetry): ('win', d) fastest win, ('loss', d) slowest loss, None when nothing is forced."""
    win_at = None
    loss_at = 0
    all_lose = True
    for move in board.legal_moves():
        board.push(move)
        outcome = board.outcome()
        sub = None
        if outcome is None and depth > 1:
            sub = brute(board, depth - 1)
        board.pop()
        if outcome is not None and outcome.winner is not None:
            if outcome.winner == board.turn:
                return ("win", 1)
            loss_at = max(loss_at, 1)
        elif sub is None:
            all_lose = False
        elif sub[0] == "loss":
            all_lose = False
            win_at = sub[1] + 1 if win_at is None else min(win_at, sub[1] + 1)
        else:
            loss_at = max(loss_at, sub[1] + 1)
    if win_at is not None:
        return ("win", win_at)
    if all_lose:
        return ("loss", loss_at)
    return None


def test_solver_agrees_with_brute_force_on_short_results():
    rng = random.Random(11)
    solver = JrSolver()
    seen = {"win": 0, "loss": 0, None: 0}
    for _ in range(40):
        board = random_board(rng, rng.randint(4, 30))
        if board.outcome() is not None:
            continue
        board = Board.from_text(board.text())
        truth = brute(board, 3)
        v = solver.value(jr.from_board(board), max_plies=3)
        got = None if v.result == DRAW else (v.result, v.plies)
        assert got == truth, board.text()
        seen[truth[0] if truth else None] += 1
    assert seen["win"] and seen["loss"] and seen[None]


def test_value_codes_round_trip():
    for v in (JrValue(WIN, 1), JrValue(WIN, 13), JrValue(LOSS, 12), JrValue(LOSS, 2)):
        assert decode(encode(v)) == v
    assert decode(encode(JrValue(DRAW, None, False, 9))).result == DRAW


@pytest.fixture(scope="session")
def table(tmp_path_factory):
    """A table of the first ply, built once per test session (about half a minute) and read
    back through the file format."""
    path = tmp_path_factory.getbasetemp() / "jr-table-1.bin"
    if not path.exists():
        save(build(plies=1), path)
    return load(path)


def test_start_is_a_first_player_win_in_13(table):
    solver = table.solver()
    start = jr.from_board(Board(GOBBLET_JR))
    assert solver.value(start) == JrValue(WIN, 13)


def test_value_of_each_first_move(table):
    solver = table.solver()
    board = Board(GOBBLET_JR)
    by_size = {1: set(), 2: set(), 3: set()}
    for move, child, _ in jr.children(jr.from_board(board)):
        value = solver.value(child).after_move()
        assert value.proven
        by_size[move[0]].add(value.result)
        if move[0] == 3 and move[1] in (0, 2, 4, 6, 8):
            assert value == JrValue(WIN, 13)  # large on a corner or the centre: the fastest win
    assert by_size == {1: {WIN}, 2: {LOSS}, 3: {WIN}}


def test_best_opening_is_a_large_piece(table):
    solver = table.solver()
    root, moves = solver.analyse(jr.from_board(Board(GOBBLET_JR)), 5.0)
    assert root == JrValue(WIN, 13)
    assert moves[0].optimal and moves[0].move[0] == 3
    optimal = [m.move for m in moves if m.optimal]
    assert all(m[0] in (1, 3) for m in optimal)
