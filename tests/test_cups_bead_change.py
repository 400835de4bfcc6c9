"""A bead with a hole dropped on a bowl's floor is a change (issue 23's eighth look).

A bead's hole shows the floor through it, so the bead changes a ring of pixels, thinner than
the bean-thick blob a bowl's change test asks for (``THICK``, there to keep a shadow's edge
out): the bowl read as unchanged and the legal move as illegal.  Small holes are now filled
before the thickness is measured; a shadow's edge running round a whole floor is not."""

from __future__ import annotations

import cv2
import numpy as np

from tests.cups_streams import play_game
from vision.cups.reader import CupsReader

UNIT = 1257.0  # a 20 mm bean's area in view pixels (2 px per mm)


def test_a_ring_a_bean_across_is_bean_thick_a_thin_loop_is_not():
    """A ring of a bead's size (outer radius 20 px, hole 9 px) keeps its blob, hole filled; a
    ring as wide with a hole over ``HOLE_BEANS`` of a bean (15 px), and a thin loop round a
    floor 120 px across, are no beans."""
    bead = np.zeros((80, 80), np.uint8)
    cv2.circle(bead, (40, 40), 20, 1, -1)
    cv2.circle(bead, (40, 40), 9, 0, -1)
    kept = CupsReader.thick_blobs(bead, UNIT)
    assert kept[40, 40] == 1 and kept.sum() > bead.sum()  # the hole counts with the bead

    wide = np.zeros((80, 80), np.uint8)
    cv2.circle(wide, (40, 40), 20, 1, -1)
    cv2.circle(wide, (40, 40), 15, 0, -1)
    assert not CupsReader.thick_blobs(wide, UNIT).any()

    loop = np.zeros((160, 160), np.uint8)
    cv2.circle(loop, (80, 80), 60, 1, 2)
    assert not CupsReader.thick_blobs(loop, UNIT).any()


def test_a_bead_dropped_on_a_white_bowl_floor_is_seen(tmp_path):
    """Seed 9000, cups-4 in daylight, move 2: North's d2x puts a yellow bead with a hole in
    North's bowl (its white floor bare before).  With the ring taken as too thin for a bean
    the bowl read as unchanged, and with North's cup 1's bead and the capture unseen as well
    no legal move explained the table: "a drop puts one bean into each of North's cups from
    the leftmost, with no gap", an alert on a legal move.  Now the move is committed."""
    outcomes = play_game(tmp_path, "cups-4", "daylight", 9000, 2)
    assert outcomes[1] == "right", outcomes
