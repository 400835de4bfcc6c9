"""The Cups referee where the reading leaves a doubt, on rendered games (the bench's tuning
seeds, ``bench/cups_referee.py``): a move the reading cannot tell from a longer one is asked
about, never committed as the shorter; a faint change or a bare floor the best move leaves
unexplained keeps it from being committed alone.  Each game is played as the players would
(``test_cups_referee_misses.play``)."""

from __future__ import annotations

from tests.cups_streams import play_game


def test_a_faint_change_the_best_move_leaves_alone_keeps_its_alarm(tmp_path):
    """Seed 9000, cups-4 in daylight, move 3 (d4x): South's cup 3 reads changed by 0.42 of a
    bean, the bean d4x put there, seen faintly.  d2 leaves that change unexplained and d4x is
    ruled out by the hand's reach; weighed by its faintness, the change let d2 be committed
    alone.  A faint change is a change: the move is alerted or asked, never committed wrong."""
    outcomes = play_game(tmp_path, "cups-4", "daylight", 9000, 3)
    assert outcomes[2] != "wrong", outcomes


def test_a_drop_whose_beans_went_unseen_is_asked_not_committed_shorter(tmp_path):
    """Seed 8004, cups-4 in daylight, move 1: South drops 4, and only cup 3's bean is seen.  d3
    (two beans unseen) scored best and d4 (three unseen) was ruled out as too much unseen, so
    d3 was committed alone; the hand came over cup 4 too, and the reading cannot tell them
    apart: the referee must ask, d4 among the candidates."""
    outcomes = play_game(tmp_path, "cups-4", "daylight", 8004, 1)
    assert outcomes[0] == "asked", outcomes


def test_a_capture_seen_shows_where_a_drop_ended(tmp_path):
    """Seed 8003, cups-6 in daylight, move 9: South's d6x, its last bean unseen in cup 6 (the
    hand barely over it), but North's cup 1 read emptied and the bowl read gaining: a drop
    takes the opposite cup only when its last bean lands in an empty cup, so the drop's end is
    seen and the move is committed, not asked about."""
    outcomes = play_game(tmp_path, "cups-6", "daylight", 8003, 9)
    assert outcomes[8] == "right", outcomes


def test_a_bare_floor_counts_against_a_move_where_beans_were_missed_before(tmp_path):
    """Seed 9001, cups-6 in lamplight, move 8 (d6x): North's cup 2 held a bean the reader never
    saw and reads bare and unchanged; both d5 and d6x add a bean there.  Taking that bare floor
    as no evidence left d5 with only the bowl's gain unexplained, and d5 was committed alone.
    The move is alerted or asked, never committed wrong."""
    outcomes = play_game(tmp_path, "cups-6", "lamplight", 9001, 8)
    assert outcomes[7] != "wrong", outcomes


def test_a_question_offers_the_rival_just_past_the_doubt(tmp_path):
    """Seed 8004, cups-4 in lamplight, move 1: the same drop of 4 as above, under the low lamp.
    d3 scores best, d1 next, d4 trails by just over ``MARGIN``: the question offered d3 or d1,
    without the move played.  Rivals a little past the doubt fill the question (at most
    ``ASK_MAX``), so d4 is among the candidates."""
    outcomes = play_game(tmp_path, "cups-4", "lamplight", 8004, 1)
    assert outcomes[0] == "asked", outcomes
