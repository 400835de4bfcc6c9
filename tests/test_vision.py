"""Recognition accuracy on a small seeded set of rendered boards (the 500-board figures come
from ``cupboard vision-eval`` / ``bench/vision.py``)."""

import pytest

from vision.evaluate import evaluate

# Floors a little under what the current recogniser measures on these seeds, so a
# regression fails; the targets (99.8 % / 97 %) are checked by the 500-board bench.
FLOORS = {"gobblet": (0.96, 0.6), "gobblet-jr": (0.97, 0.8), "storer-clear": (0.85, 0.0)}


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_accuracy_on_seeded_boards(name):
    res = evaluate(name, boards=12, seed=3, per_camera=6)
    square, board = FLOORS[name]
    assert res.boards == 12
    assert res.square_accuracy >= square, res
    assert res.board_accuracy >= board, res
