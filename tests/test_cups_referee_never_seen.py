"""Issue 23, ``cups36``: a cup whose beans the camera never saw can be emptied unseen.  A
legal move that explains every change read, and otherwise only adds beans unseen or empties a
cup that read bare before and after (``CupsReferee._never_seen``), is asked about, not
alerted as illegal: the camera sees nothing that sets it apart from the move played."""

from __future__ import annotations

import pytest

from tests.cups_streams import play_game


@pytest.mark.parametrize("style", ["daylight", "lamplight"])
def test_a_capture_of_a_bead_the_floor_hides_is_asked(tmp_path, style):
    """Seed 9201, cups-6, move 2: North's d4x takes South's cup 3's white bead, which the white
    floor (burnt out in daylight) hid before and after; North's beads in its cups 1, 2 and 4 go
    unseen too.  d4x left 4.28 unexplained, over ``FIT_MIN``, and the emptied cup read
    unchanged kept it from being asked: the legal move was alerted as illegal."""
    outcomes = play_game(tmp_path, "cups-6", style, 9201, 2, every_hand_frame=True)
    assert outcomes[1] == "asked", outcomes
    assert "wrong" not in outcomes and "illegal" not in outcomes, outcomes


def test_a_capture_of_a_cup_seen_under_half_is_asked(tmp_path):
    """Seed 9203, cups-6 in daylight, move 3: South's d6x captures North's cup 1, whose floor
    the camera sees 0.45 of and whose bead it never saw; South's cups 4 and 5 read unchanged.
    d6x left 3.32 unexplained and was alerted as a drop with a gap."""
    outcomes = play_game(tmp_path, "cups-6", "daylight", 9203, 3, every_hand_frame=True)
    assert outcomes[2] == "asked", outcomes
    assert "wrong" not in outcomes and "illegal" not in outcomes, outcomes
