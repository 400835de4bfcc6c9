"""The Cups referee's missed moves and false alarms of issue 23's second look, on rendered games:
a bowl whose floor only shows a shadow's edge shifted is not read as changed (no false alarm),
and a bean dropped unseen into a cup never lets the move go silently (the referee asks, the
right move among the candidates).  The cases are the bench's (``bench/cups_referee.py``,
seeds 2000-2002); held-out seeds (5040-5041) check the same on games no one looked at.

Each game is played as the players would: a question is answered with the right move, a move
missed or alerted on is tapped in, so every move is judged from the right position."""

from __future__ import annotations

import numpy as np
import pytest
import cv2

from tests.cups_streams import play_game
from vision.cups.reader import CupsReader


def test_a_shadow_edge_on_a_bowl_floor_is_no_change(tmp_path):
    """Seed 2000, cups-4 in daylight: South's sow of cup 2 (move 9) once read North's bowl as
    changed (slivers of its rim's shadow) and was alerted as North's beans moving."""
    outcomes = play_game(tmp_path, "cups-4", "daylight", 2000, 9)
    assert outcomes[8] == "right"
    assert "illegal" not in outcomes and "wrong" not in outcomes and "missed" not in outcomes


def test_a_first_drop_under_a_low_lamp_is_no_alarm(tmp_path):
    """Seed 2000, cups-6 under the lamp: South's opening drop of 4 once read the empty bowl
    beside it as changed (specks along its shadow) and was taken for an illegal change.  Its
    move 10, North's drop of 1 whose bean lies under the rim, unseen, is asked about."""
    outcomes = play_game(tmp_path, "cups-6", "lamplight", 2000, 10)
    assert outcomes[0] in ("right", "asked")
    assert outcomes[9] in ("right", "asked")
    assert "illegal" not in outcomes and "wrong" not in outcomes and "missed" not in outcomes


def test_a_bean_dropped_unseen_is_asked_about(tmp_path):
    """Seed 2002, cups-6 in daylight: South's drop of 1 (move 5) onto two beans in cup 1 is not
    seen (its bean lies against the others) while the stock reads changed: the referee asks
    rather than let the move go."""
    outcomes = play_game(tmp_path, "cups-6", "daylight", 2002, 5)
    assert outcomes[4] in ("right", "asked")
    assert "illegal" not in outcomes and "wrong" not in outcomes and "missed" not in outcomes


@pytest.mark.parametrize("layout_name,style,seed", [("cups-4", "lamplight", 5040), ("cups-6", "daylight", 5041)])
def test_held_out_games_lose_no_move(tmp_path, layout_name, style, seed):
    """Games no one tuned on: no wrong move, no false alarm, no move let go."""
    outcomes = play_game(tmp_path, layout_name, style, seed, 8)
    assert len(outcomes) == 8
    assert "illegal" not in outcomes and "wrong" not in outcomes and "missed" not in outcomes
    assert outcomes.count("right") >= 5


def test_a_thin_sliver_is_no_bean_but_half_a_bean_is():
    """``CupsReader.moved`` on masks: a shadow edge's sliver the area of two beans counts
    nothing; a whole bean counts about one; a bean cut in half by the rim still counts."""
    unit = 500.0
    r = int(round(np.sqrt(unit / np.pi)))
    sliver = np.zeros((120, 120), np.uint8)
    sliver[20:24, 10:110] = 1  # 4 px thick, 400 px: about a bean's area, no bean's shape
    sliver[60:63, 5:115] = 1
    assert CupsReader.moved(sliver, unit) == 0.0
    bean = np.zeros((120, 120), np.uint8)
    cv2.circle(bean, (60, 60), r, 1, -1)
    assert 0.8 < CupsReader.moved(bean, unit) < 1.2
    half = bean.copy()
    half[:, :60] = 0
    assert 0.35 < CupsReader.moved(half, unit) < 0.65
    assert CupsReader.moved(np.zeros((50, 50), np.uint8), unit) == 0.0


def test_an_empty_cups_shadow_edge_is_no_change(tmp_path):
    """Seed 3000, cups-6 under the lamp: South's sow of cup 3 (move 9) once read South's empty
    cup 1, which the hand never came near, as changed (a sliver of its rim's shadow edge, a
    quarter of a bean, that differed from the empty table in the last still table and not now)
    and was alerted as a sow without the exact count."""
    outcomes = play_game(tmp_path, "cups-6", "lamplight", 3000, 9)
    assert outcomes[8] in ("right", "asked")
    assert "illegal" not in outcomes and "wrong" not in outcomes and "missed" not in outcomes


def test_a_bean_seen_a_little_otherwise_is_no_change(tmp_path):
    """Seed 3004, cups-6 under the lamp: North's drop of 4 (move 6) passed the hand over South's
    cup 5, whose two beans stayed; part of its dark bean read otherwise (half a bean's area) and
    the move was alerted as a drop into the opponent's cups."""
    outcomes = play_game(tmp_path, "cups-6", "lamplight", 3004, 6)
    assert outcomes[5] in ("right", "asked")
    assert "illegal" not in outcomes and "wrong" not in outcomes and "missed" not in outcomes


def test_a_change_counts_only_where_beans_come_go_or_land_on_beans():
    """``CupsReader.bean_change`` on masks: a thin change where the floor looks bare in both
    frames (a shadow's edge) counts nothing, a bean-thick one counts; a new bean counts whole; on a bean that stays, half a bean's change counts
    nothing and a bean landing on it (a whole bean's change) counts."""
    unit = 400.0
    r = int(round(np.sqrt(unit / np.pi)))
    empty = np.zeros((120, 120), np.uint8)
    bean = empty.copy()
    cv2.circle(bean, (40, 60), r, 1, -1)
    # the floor bare in both frames: a shadow edge that moved is no bean
    edge = empty.copy()
    edge[20:28, 10:60] = 1
    assert not CupsReader.bean_change(edge, empty, empty, unit).any()
    # ... but a bean the empty table's comparison missed still shows
    assert CupsReader.bean_change(bean, empty, empty, unit).sum() == bean.sum()
    # a bean came: all of its change counts
    assert CupsReader.bean_change(bean, bean, empty, unit).sum() == bean.sum()
    # a bean went
    assert CupsReader.bean_change(bean, empty, bean, unit).sum() == bean.sum()
    # the bean stays; half of it reads otherwise (its glint, the noise of a dark bean)
    half = bean.copy()
    half[:, 40:] = 0
    assert not CupsReader.bean_change(half, bean, bean, unit).any()
    # another bean lands on it: a whole bean's change where beans lay and lie
    assert CupsReader.bean_change(bean, bean, bean, unit).sum() == bean.sum()
    # a speck unlike the empty table (a tenth of a bean) is no bean to come or go
    speck = empty.copy()
    speck[60:66, 100:106] = 1
    assert not CupsReader.bean_change(speck, speck, empty, unit).any()
