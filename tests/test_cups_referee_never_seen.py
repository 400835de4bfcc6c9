"""Issue 23, ``cups36``: a cup whose beans the camera never saw can be emptied unseen.  A
legal move that explains every change read, and otherwise only adds beans unseen or empties a
cup that read bare before and after (``CupsReferee._never_seen``), is asked about, not
alerted as illegal: the camera sees nothing that sets it apart from the move played.  An
illegal drop into the opponent's cups is named with its rule though its stock shows no change.
And a hand seen over a later cup of a drop's run passed the cups before it (``_plausible``)."""

from __future__ import annotations

import random

import pytest

from companion.cups_camera import CupsReferee, table_state
from engine.cups.rules import CupsRules
from tests.cups_streams import cups_layout, misplay, misplay_script, new_session, play_game, random_moves, run, stream


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


@pytest.mark.parametrize("style", ["daylight", "lamplight"])
def test_a_drop_into_the_opponents_cups_is_named_when_the_stock_shows_no_change(tmp_path, style):
    """Seed 2002, cups-4: after South's first move North drops 4 beans from its stock into
    South's cups 1-4 (``misplay`` "theirs", as ``bench/cups_illegal.py`` scripts it), then puts
    the table back.  The heap of 40 shows no change for 4 beans less, so the camera sees only
    South's cups gain beans: the alert named no rule ("no legal move of North changes the table
    this way"); it names the drop into the opponent's cups, and the table put back is taken as
    the game's."""
    rules = CupsRules(cups=4)
    game = rules.new_game()
    start = table_state(game)
    first = random_moves(rules, 2002, 1)[0]
    game.push(first)
    after = table_state(game)
    bad = misplay(game, "theirs", random.Random(2002 * 31 + 7))
    assert bad is not None and bad.stocks[1] == after.stocks[1] - 4 and bad.south == tuple(c + 1 for c in after.south)
    s = stream(cups_layout("cups-4"), [start, after, bad, after], 2002, style)
    session = new_session(tmp_path, rules)
    referee = CupsReferee(session, s.setup)

    def answer(frame) -> None:  # South's move may be asked about (daylight: d1 or d2); the players answer
        if session.board.ply == 0 and referee.pending is not None:
            referee.confirm([c[0] for c in referee.pending.candidates].index(first))

    result = run(referee, s.frames, on_frame=answer)
    assert [m[0] for m in result.moves] == [rules.new_game().move_text(first)]
    alerts = [(k, text) for k, text in result.alerts if k != "ambiguous"]
    assert [k for k, _ in alerts] == ["illegal", "restored"], result.alerts
    assert "never into South's" in alerts[0][1], alerts[0][1]


def test_a_hand_seen_over_a_later_cup_of_the_run_passed_the_cups_before_it(tmp_path):
    """Seed 3001 cups-6 in daylight, ``bench/cups_illegal.py``'s game (an illegal change before
    moves 2, 5 and 8, each put back): move 9 is South's d5, whose beans in cups 4 and 5 land on
    beans and read unchanged.  d3 explains every change read; d5 trailed it by 1.81, inside
    ``MARGIN``, but the hand was seen over cup 4 only 0.03 of it (it went over cups 1, 3 and 5),
    so d5 was no plausible rival and d3 was committed.  The hand seen over cup 5 (0.58) passed
    cup 4: d5 is asked about with d3."""
    rules = CupsRules(cups=6)
    truth, tables, _ = misplay_script(rules, 3001, 9)
    s = stream(cups_layout("cups-6"), tables, 3001, "daylight")
    session = new_session(tmp_path, rules)
    referee = CupsReferee(session, s.setup)

    def answer(frame) -> None:  # the players answer each question with the move played
        if referee.pending is not None and session.board.ply < len(truth):
            candidates = [c[0] for c in referee.pending.candidates]
            if truth[session.board.ply] in candidates:
                referee.confirm(candidates.index(truth[session.board.ply]))

    result = run(referee, s.frames, on_frame=answer)
    game = rules.new_game()
    played = []
    for move in truth:
        played.append(game.move_text(move))
        game.push(move)
    assert [m[0] for m in result.moves] == played, result.moves
