"""Cups rules (RULES.md section ``cups`` and the seed ``003_…``) on hand-built positions, move
counts against an independent brute force, and properties of play and undo."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cups import (CupsGame, CupsRules, CupsRulesError, Drop, IllegalMove, Pass, Sow,
                         parse_position, variant)
from engine.cups.solve import perft

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def position(text: str) -> CupsGame:
    return parse_position(text)


# -- the seed's worked example and the capture rule ------------------------------------------

def test_worked_capture_example_takes_the_opposite_cup_and_keeps_the_dropped_bean():
    # "your third cup was empty ... you would steal all the beans from your opponent's second
    # cup": South drops 3, the last bean lands in the empty cup 3, North's cup 2 holds 1 bean
    game = position("cups S 0 0 0 0 | 0 | 40 / N 0 1 0 0 | 0 | 39 ; S to move")
    assert game.captures(Drop(3)) == 1
    assert game.move_text(Drop(3)) == "d3x"
    game.push(Drop(3))
    assert game.cups[0] == [1, 1, 1, 0]  # the dropped bean stays in cup 3
    assert game.cups[1] == [0, 0, 0, 0]  # North's cup 2 emptied
    assert game.bowls == [1, 0]
    assert game.stocks == [37, 39]
    assert game.turn == 1


def test_no_capture_when_the_last_cup_was_not_empty():
    game = position("cups S 0 0 2 0 | 0 | 38 / N 0 5 0 0 | 0 | 35 ; S to move")
    assert game.move_text(Drop(3)) == "d3"
    game.push(Drop(3))
    assert game.cups[0] == [1, 1, 3, 0]
    assert game.cups[1] == [0, 5, 0, 0]
    assert game.bowls == [0, 0]


def test_earlier_cups_being_empty_does_not_matter_only_the_last():
    # cups 1 and 2 are empty but cup 3 (the last) is not: no capture; a drop of 2 captures
    game = position("cups S 0 0 1 0 | 0 | 39 / N 0 2 6 0 | 0 | 32 ; S to move")
    assert game.captures(Drop(3)) == 0
    assert game.captures(Drop(2)) == 6  # South cup 2 faces North cup 3
    assert game.captures(Drop(1)) == 0  # North cup 4 is empty: nothing to take


def test_opposite_cups_for_three_and_ten_cups():
    for x in (3, 10):
        rules = CupsRules(cups=x)
        for k in range(1, x + 1):
            game = CupsGame(rules)
            game.stocks = [rules.beans, rules.beans - 1]
            game.cups[1][x - k] = 1  # North's cup X+1-k faces South's cup k
            game.push(Drop(k))
            assert game.bowls[0] == 1, (x, k)
            assert sum(game.cups[1]) == 0


def test_ten_cups_drop_ten():
    game = variant("cups[cups=10]").new_game()
    assert game.stocks == [100, 100]
    assert [m for m in game.legal_moves()] == [Drop(k) for k in range(1, 11)]
    game.push(Drop(10))
    assert game.cups[0] == [1] * 10 and game.stocks[0] == 90


# -- sowing --------------------------------------------------------------------------------

def test_sow_needs_exactly_the_distance_to_the_bowl():
    game = position("cups S 4 2 3 0 | 0 | 31 / N 0 0 0 0 | 0 | 40 ; S to move")
    assert Sow(1) in game.legal_moves()  # 4 beans, distance 4
    assert Sow(2) not in game.legal_moves()  # 2 beans, distance 3
    assert Sow(3) not in game.legal_moves()  # 3 beans, distance 2: blocked
    assert "exactly 3" in game.illegal_reason(Sow(2))
    with pytest.raises(IllegalMove, match="exactly 2 beans.*holds 3"):
        game.push(Sow(3))
    game.push(Sow(1))
    assert game.cups[0] == [0, 3, 4, 1]
    assert game.bowls == [1, 0]


def test_sowing_never_captures():
    # sowing cup 3 (2 beans) drops its first bean into the empty cup 4: no capture
    game = position("cups S 0 0 2 0 | 0 | 38 / N 7 0 0 0 | 0 | 33 ; S to move")
    game.push(Sow(3))
    assert game.cups[0] == [0, 0, 0, 1]
    assert game.cups[1] == [7, 0, 0, 0]
    assert game.bowls == [1, 0]


def test_blocked_cup_is_never_sowable_and_waits_for_a_capture():
    game = position("cups S 6 0 0 0 | 0 | 34 / N 0 0 0 0 | 0 | 40 ; N to move")
    assert game.captures(Drop(4)) == 6  # North's cup 4 faces South's cup 1
    game.push(Drop(4))
    assert game.cups[0][0] == 0 and game.bowls[1] == 6


def test_drop_limits():
    game = position("cups S 0 0 0 0 | 0 | 2 / N 0 0 0 0 | 38 | 40 ; S to move")
    assert game.legal_moves() == [Drop(1), Drop(2)]
    assert "only 2 beans in stock" in game.illegal_reason(Drop(3))
    assert "1 to 4" in game.illegal_reason(Drop(5))
    assert "no cup 5" in game.illegal_reason(Sow(5))


# -- passing and the end ---------------------------------------------------------------------

def test_forced_pass_and_no_voluntary_pass():
    # South has no stock and no sowable cup; North still has beans to drop
    game = position("cups S 5 0 0 0 | 35 | 0 / N 0 0 0 0 | 0 | 40 ; S to move")
    assert game.legal_moves() == [Pass()]
    assert game.move_text(Pass()) == "pass"
    game.push(Pass())
    assert game.turn == 1 and game.ply == 1
    assert "passing is allowed only without one" in game.illegal_reason(Pass())
    # North keeps moving; South passes each time until the game ends
    game.push(Drop(4))  # captures South's blocked cup 1
    assert game.bowls == [35, 5]
    assert game.legal_moves() == [Pass()]


def test_game_ends_when_neither_player_can_move():
    game = position("cups S 5 0 0 0 | 30 | 0 / N 1 0 0 0 | 44 | 0 ; game over")
    assert game.legal_moves() == []
    out = game.outcome()
    assert out is not None and out.winner == 1 and out.result == "0-1"
    # the outcome's reason is the shared word ``score``; the sentence with the score is outcome_text
    assert out.reason == "score" and "44" in game.outcome_text(out)
    assert game.illegal_reason(Pass()).startswith("the game is over")


def test_last_sow_ends_the_game_and_fuller_bowl_wins():
    game = position("cups S 0 0 0 1 | 40 | 0 / N 2 0 0 0 | 37 | 0 ; S to move")
    assert game.outcome() is None
    game.push(Sow(4))
    out = game.outcome()
    assert out is not None and out.winner == 0 and out.result == "1-0"
    game.pop()
    assert game.outcome() is None and game.cups[0] == [0, 0, 0, 1]


def test_equal_bowls_draw_and_count_left_option():
    plain = position("cups S 3 0 0 0 | 37 | 0 / N 0 0 0 0 | 40 | 0 ; game over")
    assert plain.outcome().winner == 1
    counted = position("cups[count-left] S 3 0 0 0 | 37 | 0 / N 0 0 0 0 | 40 | 0 ; game over")
    assert counted.outcome().winner is None and counted.outcome().result == "1/2-1/2"
    level = position("cups S 0 0 0 0 | 40 | 0 / N 0 0 0 0 | 40 | 0 ; game over")
    assert level.outcome().winner is None


def test_first_player_option():
    game = variant("cups[first=north]").new_game()
    assert game.turn == 1 and game.player_name(1) == "North"
    assert game.text().startswith("cups[first=north] ") and game.text().endswith("N to move")


# -- rule tokens -----------------------------------------------------------------------------

@pytest.mark.parametrize("token", ["cups", "cups[cups=3]", "cups[cups=5,beans=40,count-left,first=north]",
                                   "cups[cups=10]", "cups[beans=7]"])
def test_tokens_round_trip(token):
    rules = variant(token)
    assert rules.token == token
    assert variant(rules.token) == rules


def test_token_defaults_and_names():
    assert variant("cups").beans == 40 and variant("cups[cups=3]").beans == 30
    assert variant("cups[cups=4,beans=40]").token == "cups"
    assert variant("cups[cups=3]").name == "Cups (3 cups, 30 beans each)"


@pytest.mark.parametrize("token,words", [
    ("cups[cups=2]", "3 to 10"), ("cups[cups=11]", "3 to 10"), ("cups[beans=0]", "beans must be"),
    ("cups[cups=x]", "whole number"), ("cups[colour=red]", "unknown option"), ("cups[cups=3",
                                                                                  "must end with"),
    ("gobblet", "starts with 'cups'"), ("cups[first=east]", "south or north"), ("cups[cups=3,cups=4]", "twice"),
])
def test_bad_tokens_name_the_problem(token, words):
    with pytest.raises(CupsRulesError, match=words):
        variant(token)


# -- move counts against an independent brute force ------------------------------------------

def brute_count(x: int, beans: int, depth: int) -> int:
    """Move sequences of ``depth`` moves from the start, on plain lists (written apart from the
    engine: index 0 is the cup farthest from the bowl)."""
    def has_move(cups, stock):
        return stock > 0 or any(cups[i] == x - i for i in range(x))

    def count(cups, stocks, turn, d):
        if d == 0:
            return 1
        me, you = turn, 1 - turn
        total = 0
        moved = False
        for k in range(1, min(x, stocks[me]) + 1):
            moved = True
            mine = cups[me][:]
            theirs = cups[you][:]
            was_empty = mine[k - 1] == 0
            for i in range(k):
                mine[i] += 1
            if was_empty:
                theirs[x - k] = 0
            new = [None, None]
            new[me], new[you] = mine, theirs
            new_stocks = stocks[:]
            new_stocks[me] -= k
            total += count(new, new_stocks, you, d - 1)
        for i in range(x):
            if cups[me][i] == x - i:
                moved = True
                mine = cups[me][:]
                mine[i] = 0
                for j in range(i + 1, x):
                    mine[j] += 1
                new = [None, None]
                new[me], new[you] = mine, cups[you]
                total += count(new, stocks, you, d - 1)
        if not moved and has_move(cups[you], stocks[you]):
            total += count(cups, stocks, you, d - 1)
        return total

    return count([[0] * x, [0] * x], [beans, beans], 0, depth)


@pytest.mark.parametrize("token,x,beans,depth", [
    ("cups", 4, 40, 5), ("cups[cups=3]", 3, 30, 6), ("cups[cups=3,beans=4]", 3, 4, 12),
    ("cups[beans=5]", 4, 5, 9), ("cups[cups=10]", 10, 100, 3),
])
def test_perft_matches_brute_force(token, x, beans, depth):
    game = variant(token).new_game()
    for d in range(1, depth + 1):
        assert perft(game, d) == brute_count(x, beans, d), d


def test_perft_small_values_by_hand():
    game = variant("cups").new_game()
    assert perft(game, 1) == 4
    assert perft(game, 2) == 16  # North answers each drop with its 4 drops
    # South then has 4 drops, plus the sow of cup 4 (1 bean, distance 1) after d4 unless North's
    # d1 took it (North's cup 1 faces South's cup 4): 3 more
    assert perft(game, 3) == 16 * 4 + 3


# -- properties of play and undo ---------------------------------------------------------------

games = st.tuples(st.sampled_from(["cups", "cups[cups=3]", "cups[cups=3,beans=5]", "cups[beans=6,count-left]",
                                   "cups[cups=6,beans=9,first=north]", "cups[cups=10,beans=12]"]),
                  st.lists(st.integers(0, 1000), max_size=80))


def play(token, choices):
    game = variant(token).new_game()
    for c in choices:
        moves = game.legal_moves()
        if not moves:
            break
        game.push(moves[c % len(moves)])
    return game


@SETTINGS
@given(games)
def test_beans_are_conserved_and_undo_restores(case):
    token, choices = case
    game = variant(token).new_game()
    total = 2 * game.rules.beans
    seen = [game.text()]
    for c in choices:
        moves = game.legal_moves()
        if not moves:
            assert game.outcome() is not None
            break
        game.push(moves[c % len(moves)])
        assert sum(game.bowls) + sum(map(sum, game.cups)) + sum(game.stocks) == total
        assert all(v >= 0 for row in game.cups for v in row)
        seen.append(game.text())
    assert game.ply == len(seen) - 1
    copy = game.copy()
    while game.can_pop:
        assert game.text() == seen.pop()
        game.pop()
    assert game.text() == seen.pop() == variant(token).new_game().text()
    assert game.pop() is None and game.ply == 0
    assert copy.ply == len(copy.moves)  # the copy kept its own history


@SETTINGS
@given(games)
def test_every_move_that_is_not_listed_has_a_reason(case):
    token, choices = case
    game = play(token, choices)
    legal = set(game.legal_moves())
    x = game.rules.cups
    for move in [Pass()] + [Drop(k) for k in range(0, x + 2)] + [Sow(n) for n in range(0, x + 2)]:
        reason = game.illegal_reason(move)
        assert (reason is None) == (move in legal), (move, reason)
