"""The Cups referee where the reading leaves a doubt, on rendered games (the bench's tuning
seeds, ``bench/cups_referee.py``): a faint change under a low lamp in a container the move
leaves alone is no alarm, and a move the reading cannot tell from a longer one is asked about,
never committed as the shorter.  Each game is played as the players would
(``test_cups_referee_misses.play``)."""

from __future__ import annotations

from test_cups_referee_misses import play


def test_a_bean_fringe_flickering_under_a_low_lamp_raises_no_alarm(tmp_path):
    """Seed 5006, cups-4 in lamplight, move 4 (d3x): a bean's fringe in a container the move
    leaves alone reads as 0.39 of a bean changed; taken as a sure change it ruled every legal
    move out and the move was alerted as illegal."""
    outcomes = play(tmp_path, "cups-4", "lamplight", 5006, 4)
    assert outcomes[3] in ("right", "asked"), outcomes


def test_a_drop_whose_beans_went_unseen_is_asked_not_committed_shorter(tmp_path):
    """Seed 8004, cups-4 in daylight, move 1: South drops 4, and only cup 3's bean is seen.  d3
    (two beans unseen) scored best and d4 (three unseen) was ruled out as too much unseen, so
    d3 was committed alone; the hand came over cup 4 too, and the reading cannot tell them
    apart: the referee must ask, d4 among the candidates."""
    outcomes = play(tmp_path, "cups-4", "daylight", 8004, 1)
    assert outcomes[0] == "asked", outcomes


def test_a_capture_seen_shows_where_a_drop_ended(tmp_path):
    """Seed 8003, cups-6 in daylight, move 9: South's d6x, its last bean unseen in cup 6 (the
    hand barely over it), but North's cup 1 read emptied and the bowl read gaining: a drop
    takes the opposite cup only when its last bean lands in an empty cup, so the drop's end is
    seen and the move is committed, not asked about."""
    outcomes = play(tmp_path, "cups-6", "daylight", 8003, 9)
    assert outcomes[8] == "right", outcomes


def test_a_cup_whose_beans_were_never_seen_is_no_evidence_against_one_more(tmp_path):
    """Seed 8004, cups-6 in daylight, move 3: South's d6x puts a second bean into cup 1, whose
    first bean the reader never saw (it reads a bare floor, unchanged); that bare floor ruled
    d6x out as leaving two beans there, and the move was asked about alone.  It is committed."""
    outcomes = play(tmp_path, "cups-6", "daylight", 8004, 3)
    assert outcomes[2] == "right", outcomes


def test_a_question_offers_the_rival_just_past_the_doubt(tmp_path):
    """Seed 8004, cups-4 in lamplight, move 1: the same drop of 4 as above, under the low lamp.
    d3 scores best, d1 next, d4 trails by just over ``MARGIN``: the question offered d3 or d1,
    without the move played.  Rivals a little past the doubt fill the question (at most
    ``ASK_MAX``), so d4 is among the candidates."""
    outcomes = play(tmp_path, "cups-4", "lamplight", 8004, 1)
    assert outcomes[0] == "asked", outcomes
