"""Move generation checked by counting move sequences from the start (perft)."""

import pytest

from engine.gobblet import Board, perft
from engine import variant
from engine.gobblet.board import parse_position

# From shared/RULES.md: independent engines agree on these.
GOBBLET = [16, 240, 10_080, 406_560]
GOBBLET_JR = [27, 675, 20_313, 572_472]


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_gobblet_perft(depth):
    assert perft(Board(variant("gobblet")), depth) == GOBBLET[depth - 1]


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_gobblet_jr_perft(depth):
    assert perft(Board(variant("gobblet-jr")), depth) == GOBBLET_JR[depth - 1]


def test_counting_agrees_with_generating():
    """count_legal_moves is the fast path of perft; it must equal len(legal_moves())."""
    for name in ("gobblet", "gobblet-jr", "storer", "goblet-5"):
        board = Board(variant(name))
        for ply in range(40):
            moves = board.legal_moves()
            assert board.count_legal_moves() == len(moves)
            if not moves:
                break
            board.push(moves[(ply * 7919) % len(moves)])


def test_perft_from_position_text():
    start = Board(variant("gobblet-jr")).text()
    assert perft(parse_position(start), 2) == 675


def test_perft_without_bulk_counting_agrees():
    """Pushing every leaf (bulk=False) counts the same sequences as counting the last ply."""
    for name, counts in (("gobblet", GOBBLET), ("gobblet-jr", GOBBLET_JR)):
        assert perft(Board(variant(name)), 3, bulk=False) == counts[2]
