"""A drop against the drop one cup longer (issue 23's eighth look), on rendered games: when the
longer drop's last bean would land in a cup whose floor the camera sees almost whole and
nothing stirred there, the drop seen is committed; where most of that cup's floor lies under
its near rim, a bean may have landed unseen and the players are still asked."""

from __future__ import annotations

from tests.cups_streams import play_game

from companion.cups_camera import SEEN_MIN, STIR_QUIET
from engine.cups.rules import CupsRules
from hardware.cups.layout import load_layout
from tests.cups_streams import game_tables, random_moves, stream
from vision.cups.reader import CupsReader


def test_the_drop_seen_is_committed_when_the_next_cup_is_seen_quiet(tmp_path):
    """Seed 9001, cups-4 in daylight, move 1: South drops 1, its bean seen in cup 1.  d2 would
    also put a bean in cup 2, which the hand came over; a bean landing unseen on an empty floor
    costs less than ``MARGIN``, so d1 or d2 was asked.  Cup 2's floor is seen over ``SEEN_MIN``
    of it and nothing stirred there: d1 is committed alone."""
    outcomes = play_game(tmp_path, "cups-4", "daylight", 9001, 1)
    assert outcomes == ["right"], outcomes


def test_a_cup_mostly_under_its_rim_still_leaves_the_doubt(tmp_path):
    """Seed 9000, cups-4 in daylight, move 1: South drops 3; d4's extra bean would land in
    South's cup 4, whose floor the camera sees only about half of (the rest under its near rim:
    on the same game's move 3 a bean landed there unseen).  The players are asked, d3 or d4."""
    outcomes = play_game(tmp_path, "cups-4", "daylight", 9000, 1)
    assert outcomes == ["asked"], outcomes


def test_a_rival_whose_extra_bean_stirred_its_cup_is_asked_about(tmp_path):
    """Seed 9302, cups-4 under the low lamp, move 1: South drops 3, the beans in cups 1 and 3
    unseen (cup 3 read unchanged, yet its picture stirred by about one and a half beans).  d2
    needs cup 1's bean unseen, d3 that one and cup 3's: d3 trailed by 2.06, one unseen bean
    and the counts' tail, just past ``MARGIN``, and d2 was committed.  A rival one unseen bean
    worse whose bean would land in a stirred cup is asked about: d2 or d3."""
    outcomes = play_game(tmp_path, "cups-4", "lamplight", 9302, 1, every_hand_frame=True)
    assert outcomes == ["asked"], outcomes


def test_a_cup_nothing_touched_reads_quiet_and_one_a_bean_landed_in_does_not():
    """The reader's stir on a rendered game (seed 9001, cups-4 in daylight, move 1: a bean in
    South's cup 1): the cups nothing touched stir under ``STIR_QUIET`` of a bean; the cup the
    bean landed in is read changed, with no stir measured."""
    layout = load_layout("cups-4")
    rules = CupsRules(cups=4)
    s = stream(layout, game_tables(rules, random_moves(rules, 9001, 1)), 9001, "daylight", hold=1, move_frames=1)
    reader = CupsReader(layout, s.setup.calibration, s.setup.empty)
    still = [f.image for f, step in zip(s.frames, s.steps) if step >= 0]
    reader.set_stable(still[0])
    reading = reader.read(still[1])
    cup1, cup2 = reading.containers[0], reading.containers[1]
    assert cup1.changed and cup1.stir is None
    assert not cup2.changed and cup2.stir is not None and cup2.stir < STIR_QUIET
    assert cup2.seen is not None and cup2.seen >= SEEN_MIN
    assert reading.containers[8].stir is None  # a bowl: not measured
