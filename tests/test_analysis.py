"""The engine's analysis of games (``engine.analysis``) and looking back (``position_after``):
the verdicts per family — exact for Gobblet Jr. and for Cups, searched for 4x4 Gobblet."""

import pytest

from engine import parse_position, variant
from engine.analysis import analyse_game, judge_move, summary
from engine.cups.hints import solver_for
from engine.game import AnalysisUnavailable, moves_played, position_after
from engine.gobblet.analysis import BLUNDER_DROP, MISTAKE_DROP
from engine.gobblet import Move
from engine.gobblet.hints import use_jr_table
from engine.record import GameRecord, read_records, write_record

QUICK_WIN = ["4a1", "4b2", "4a2", "4b3", "4a3", "4b4", "3a4"]


def played(token, moves):
    game = variant(token).new_game()
    for text in moves:
        game.push(game.parse_move(text))
    return game


# ---------------------------------------------------------------------- looking back
def test_position_after_counts_plies_as_the_game_does():
    game = played("gobblet", QUICK_WIN)
    start, moves = moves_played(game)
    assert start.ply == 0 and len(moves) == 7 and game.ply == 7  # the game itself is unchanged
    three = position_after(game, 3)
    assert three.text() == played("gobblet", QUICK_WIN[:3]).text()
    assert position_after(game, 7).outcome() == game.outcome()
    for bad in (-1, 8, "3", True):
        with pytest.raises(ValueError, match="plies 0 to 7"):
            position_after(game, bad)


def test_position_after_a_set_up_start_and_a_resignation():
    setup = variant("gobblet-jr").new_game()
    setup.push(setup.parse_move("3b2"))
    game = parse_position(setup.text())  # a game set up at ply 1
    game.push(game.parse_move("3a1"))
    game.resign()
    assert moves_played(game)[0].ply == 1
    assert position_after(game, 1).text() == setup.text()
    assert position_after(game, 2).outcome().reason == "resignation"  # the ending belongs to the last ply
    with pytest.raises(ValueError, match="plies 1 to 2"):
        position_after(game, 0)


# ---------------------------------------------------------------------- Gobblet Jr., exact
@pytest.fixture(scope="module")
def exact(exact_jr_table):
    use_jr_table(exact_jr_table)
    return exact_jr_table


def test_jr_verdicts_follow_the_exact_values(exact):
    start = variant("gobblet-jr").new_game()
    values = {}
    for move in start.legal_moves():
        j = judge_move(start, move)
        assert j.exact and j.before == "wins in 13" and j.how == "exact table"
        values[start.move_text(move)] = j
    # a move that keeps the win in 13 is best; one that loses is a blunder; one that wins more
    # slowly, fine
    assert values["3b2"].verdict == "best" and values["3b2"].after == "wins in 13"
    assert values["2b2"].verdict == "blunder" and values["2b2"].after.startswith("loses in")
    for j in values.values():
        expected = ("best" if j.after == "wins in 13" else "fine" if j.after.startswith("wins in")
                    else "blunder")
        assert j.verdict == expected, j
    assert {j.best_text for j in values.values()} <= {t for t, j in values.items() if j.verdict == "best"}


def test_a_jr_game_analysed_move_by_move(exact):
    game = played("gobblet-jr", ["2b2", "3a1", "3c3"])
    moves = list(analyse_game(game))
    assert [(m.ply, m.player, m.text) for m in moves] == [(1, 0, "2b2"), (2, 1, "3a1"), (3, 0, "3c3")]
    assert moves[0].verdict == "blunder"
    counts = summary(moves)
    assert sum(counts[0].values()) == 2 and sum(counts[1].values()) == 1
    for m in moves:  # each verdict is the one judging the move alone gives
        position = position_after(game, m.ply - 1)
        assert judge_move(position, position.parse_move(m.text)).verdict == m.verdict
        assert counts[m.player][m.verdict] == sum(1 for x in moves if x.player == m.player and x.verdict == m.verdict)
    # a record is replayed and analysed the same way; ``stop`` ends the walk
    (record,) = read_records(write_record(GameRecord.from_board(game)))
    assert [m.verdict for m in analyse_game(record)] == [m.verdict for m in moves]
    assert len(list(analyse_game(record, stop=lambda: True))) == 0


# ---------------------------------------------------------------------- 4x4, searched
def test_a_4x4_move_that_lets_the_opponent_win_is_a_blunder():
    before = played("gobblet", QUICK_WIN[:5])  # White threatens to finish the a-file on a4
    blunder = judge_move(before, before.parse_move("4b4"))
    assert blunder.verdict == "blunder" and blunder.after == "loses in 2" and not blunder.exact
    assert blunder.how == "searched 4 plies" and blunder.best_text != "4b4"
    block = judge_move(before, before.parse_move(blunder.best_text))
    assert block.verdict == "best" and block.before == block.after == blunder.before
    finish = played("gobblet", QUICK_WIN[:6])
    win = judge_move(finish, finish.parse_move("3a4"))
    assert win.verdict == "best" and win.before == "wins in 1" and win.exact


def test_4x4_drops_are_graded_by_size():
    game = played("gobblet", ["4a1", "4b2"])
    seen = set()
    for move in game.legal_moves():
        j = judge_move(game, move, depth=2)
        seen.add(j.verdict)
        if j.verdict == "best":
            assert j.drop == 0
        elif j.verdict == "mistake":
            assert MISTAKE_DROP <= j.drop < BLUNDER_DROP
        elif j.verdict == "fine":
            assert 0 < j.drop < MISTAKE_DROP
    assert "best" in seen and len(seen) > 1


def test_nothing_to_judge_after_the_end_or_for_an_illegal_move():
    over = played("gobblet", QUICK_WIN)
    with pytest.raises(AnalysisUnavailable, match="over"):
        judge_move(over, over.move_stack[-1])
    game = played("gobblet", ["4a1"])
    with pytest.raises(AnalysisUnavailable, match="cannot be judged"):
        judge_move(game, Move(4, 0, None))  # Black's 4 cannot go onto White's 4 on a1


# ---------------------------------------------------------------------- Cups, exact
def test_cups_verdicts_follow_the_exact_bean_values():
    game = variant("cups[cups=3,beans=6]").new_game()
    exact = {mv.move: mv.value for mv in solver_for(game.rules).move_values(game.copy())}
    best = max(exact.values())
    for move, value in exact.items():
        j = judge_move(game, move)
        assert j.exact and j.units == "beans" and j.drop == best - value
        if value == best:
            assert j.verdict == "best"
        elif (value > 0) - (value < 0) < (best > 0) - (best < 0):
            assert j.verdict == "blunder"
        else:
            assert j.verdict == ("mistake" if best - value >= 3 else "fine")


def test_cups_too_large_for_the_exact_solver_is_not_judged():
    game = variant("cups[cups=6]").new_game()
    with pytest.raises(AnalysisUnavailable, match="do not fit the exact solver"):
        judge_move(game, game.legal_moves()[0])
    (m,) = analyse_game(played("cups[cups=6]", [game.move_text(game.legal_moves()[0])]))
    assert m.judgement is None and m.verdict is None and "exact solver" in m.problem
