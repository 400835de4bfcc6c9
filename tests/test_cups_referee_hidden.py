"""Issue 23's fourth look, on rendered games: beans the camera cannot see make the referee ask,
never alert.  A white cup's floor that does not follow the camera's exposure no longer hides
the beans on it (the reader), and a capture whose dropped beans all went unseen is asked about
rather than taken for a drop into the opponent's cups (the referee)."""

from __future__ import annotations

from engine.cups.game import Drop
from engine.cups.rules import CupsRules
from companion.cups_camera import CupsReferee, table_state
from hardware.cups.state import TableState
from tests.cups_streams import cups_layout, new_session, run, stream
from tests.cups_streams import play_game


def test_beans_on_a_white_floor_show_when_the_exposure_moves(tmp_path):
    """Seed 4000, cups-6 in daylight: at move 6 (North's d6x) the auto-exposure darkened the
    table 5 % while the white cups' floors, near the sensor's top, stayed: the even offset was
    taken for the floor's noise, the threshold rose past the beans, North's cups 2 and 3 (two
    beans each, then three) read as bare floors and the drop as having a gap: an alert."""
    outcomes = play_game(tmp_path, "cups-6", "daylight", 4000, 6)
    assert outcomes[5] == "right"
    assert "illegal" not in outcomes and "wrong" not in outcomes and "missed" not in outcomes


def test_a_capture_whose_beans_went_unseen_is_asked_about(tmp_path):
    """North's d2x after South's d3 on a 4-cup table takes South's cup 3; here the camera sees
    only that cup emptied and North's stock changed (North's two beans and the bowl's new one
    hidden, as under a rim).  A legal move explains every change seen and misses only beans
    it adds: the players are asked ("not sure: d2x?"), with no alert.  South's d3 before it is
    asked too (d3 or d4): the hand came over cup 4 (0.13 of it, over ``CAME_COVER``) and d4
    trails by less than ``MARGIN``; the players answer d3."""
    rules = CupsRules(cups=4)
    game = rules.new_game()
    start = table_state(game)
    game.push(Drop(3))
    after_d3 = table_state(game)
    game.push(Drop(2))
    after_d2x = table_state(game)
    assert after_d2x.south[2] == 0 and after_d3.south[2] == 1  # the capture
    hidden = TableState(after_d2x.south, after_d3.north, after_d3.bowls, after_d2x.stocks)
    s = stream(cups_layout(), [start, after_d3, hidden], 5012)
    session = new_session(tmp_path, rules)
    referee = CupsReferee(session, s.setup)
    first: list[list[Drop]] = []

    def answer_d3(frame) -> None:
        if session.board.ply == 0 and referee.pending is not None:
            first.append([c[0] for c in referee.pending.candidates])
            referee.confirm(first[-1].index(Drop(3)))

    result = run(referee, s.frames, on_frame=answer_d3)
    assert first and Drop(3) in first[0], first
    assert [m[0] for m in result.moves] == ["d3"]
    assert [k for k, _ in result.alerts] == ["ambiguous", "ambiguous"], result.alerts
    assert "d2x" in result.alerts[-1][1]
    assert [c[0] for c in referee.pending.candidates] == [Drop(2)]


def test_a_count_misread_on_a_cup_nothing_changed_is_no_alarm(tmp_path):
    """Seed 5000, cups-6 under the low lamp: South's cup 3 holds two beans the reader sees as
    a bare floor (confidence 0.9) from move 5 on.  No move of South's d1x changes that cup and
    it reads unchanged, yet the misread cost every move 2.85 of what it leaves unexplained, and
    the legal d1x (move 9) was alerted as "no legal move of South changes the table this way"."""
    outcomes = play_game(tmp_path, "cups-6", "lamplight", 5000, 9)
    assert outcomes[8] == "right", outcomes
    assert "illegal" not in outcomes and "wrong" not in outcomes and "missed" not in outcomes


def test_a_drop_seen_in_one_cup_only_is_asked_then_the_next_drop_unseen_too(tmp_path):
    """Seed 5007, cups-4 under the low lamp.  Move 4, North's d2: only North's cup 2 reads
    changed (cup 1's bean and the stock's two taken unseen); the stock's loss, unseen as a heap
    hides it, kept the legal d2 from being asked: an alert.  Move 5, South's d3: no cup reads
    changed, d1 scores best though the hand never came near cup 1, and d3 was left out of the
    question because the hand was not seen over cup 2 either."""
    outcomes = play_game(tmp_path, "cups-4", "lamplight", 5007, 5)
    assert outcomes[3] in ("asked", "right") and outcomes[4] in ("asked", "right"), outcomes
    assert "illegal" not in outcomes and "wrong" not in outcomes and "missed" not in outcomes


def test_a_legal_move_nothing_sure_contradicts_is_asked_though_the_best_scored_is_not(tmp_path):
    """Seed 9201, cups-6 under the low lamp, move 4: North's d2x, its bean in North's cup 2 and
    the capture of South's cup 5 unseen (both read unchanged).  The best-scored, d1, leaves the
    bowl's new bead unexplained (2.85, over ``FIT_MIN``), so the change was alerted as illegal;
    d2x, scored below it, leaves only beans unseen (2.38, under ``FIT_MIN``): nothing the camera
    sees for sure rules it out.  The players are asked, with d2x among the candidates."""
    outcomes = play_game(tmp_path, "cups-6", "lamplight", 9201, 4, every_hand_frame=True)
    assert outcomes[3] == "asked", outcomes
    assert "wrong" not in outcomes, outcomes
