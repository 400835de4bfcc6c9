"""A solid top read by its wall (the square model reading the square empty) is read one size
up where the next larger size's wall is found too and leads nearly as much
(``square_model.larger_wall``, ``Recogniser._walls_up``; docs/geometry.md, "How sure a
reading is")."""

import numpy as np

from vision.evaluate import evaluate
from vision.observation import CUP


def test_a_larger_wall_must_be_found_and_lead_nearly_as_much():
    """The larger size's wall lead must reach a wall's (``LARGER_WALL_FOUND``) and
    ``LARGER_WALL_SHARE`` of the read size's; a strong read size's lead alone lifts nothing."""
    from vision.square_model import LARGER_WALL_FOUND, LARGER_WALL_SHARE, larger_wall

    assert larger_wall(18.4, 13.3)  # a dark 4 on dark wood read by its wall as a 3 (tuning seed 13)
    assert larger_wall(8.8, 7.3)
    assert not larger_wall(21.2, -0.3)  # a 2 whose next size's circle crosses only board
    assert not larger_wall(5.3, LARGER_WALL_FOUND - 0.1)  # leads enough, but not found
    assert not larger_wall(20.0, LARGER_WALL_SHARE * 20.0 - 0.5)  # found, but leads too little
    got = larger_wall(np.array([18.4, 21.2]), np.array([13.3, -0.3]))
    assert got.tolist() == [True, False]


def test_dark_fours_read_by_their_wall_are_not_read_as_threes():
    """Gobblet on the shaded look, tuning seed 13's 2nd camera, its 2nd frame (the set
    measured): dark 4s on dark wood show no edge the edge search or the square model sees, and
    are read by their wall; main read two of them (a1, d2) as dark 3s at 0.70, the 3's circle
    leading (the 4's lit flat face ends there).  The 4's own wall leads nearly as much: they
    are read as dark 4s, doubtful (the 3's circle still leads)."""
    got = []

    def observer(rec, obs, truth):
        got.append([(truth.tops[sq], obs.squares[sq], sq in rec.last_lifted) for sq in (0, 7)])

    evaluate("gobblet", 2, seed=13, first_camera=1, measure=True, style="shaded", observer=observer)
    for truth, reading, lifted in got[1]:
        assert truth == (1, 3), "the boards changed: the case this test is about is gone"
        assert reading.state == CUP and reading.top == (1, 3) and lifted, reading
        assert reading.confidence < 0.8, reading.confidence
