"""Cups exact values against a plain minimax written apart from the engine, the depth-limited
search, the prepared table, and the hints built on them."""

import random
from functools import lru_cache

import pytest

from engine.cups import Pass, parse_position, variant
from engine.cups.hints import LEVELS, hint, level, prepare, solver_for, table_path
from engine.cups.solve import ExactSolver, search_moves


def minimax(x: int, count_left: bool, cups, bowls, stocks, turn) -> int:
    """The final score difference (side to move minus the other) with perfect play, by plain
    memoised minimax on tuples (index 0 is the cup farthest from the bowl)."""

    @lru_cache(maxsize=None)
    def future(mine, theirs, my_stock, their_stock):
        # best (my gains - their gains) from here, plus the cups at the end under count_left
        options = []
        for k in range(1, min(x, my_stock) + 1):
            a = list(mine)
            b = list(theirs)
            gain = 0
            if a[k - 1] == 0:
                gain = b[x - k]
                b[x - k] = 0
            for i in range(k):
                a[i] += 1
            options.append(gain - future(tuple(b), tuple(a), their_stock, my_stock - k))
        for i in range(x):
            if mine[i] == x - i:
                a = list(mine)
                a[i] = 0
                for j in range(i + 1, x):
                    a[j] += 1
                options.append(1 - future(theirs, tuple(a), their_stock, my_stock))
        if options:
            return max(options)
        they_can = their_stock > 0 or any(theirs[i] == x - i for i in range(x))
        if they_can:
            return -future(theirs, mine, their_stock, my_stock)
        return sum(mine) - sum(theirs) if count_left else 0

    me, you = turn, 1 - turn
    return bowls[me] - bowls[you] + future(tuple(cups[me]), tuple(cups[you]), stocks[me], stocks[you])


def reference(game) -> int:
    return minimax(game.rules.cups, game.rules.count_left, game.cups, game.bowls, game.stocks, game.turn)


SMALL = ["cups[cups=3,beans=1]", "cups[cups=3,beans=2]", "cups[cups=3,beans=4]", "cups[cups=3,beans=6]",
         "cups[beans=3]", "cups[beans=5]", "cups[beans=6,count-left]", "cups[cups=3,beans=5,count-left,first=north]",
         "cups[cups=5,beans=4]"]


@pytest.mark.parametrize("token", SMALL)
def test_start_values_match_plain_minimax(token):
    game = variant(token).new_game()
    solver = ExactSolver(game.rules)
    assert solver.value(game) == reference(game)


def random_positions(token, n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        game = variant(token).new_game()
        for _ in range(rng.randint(0, 40)):
            moves = game.legal_moves()
            if not moves:
                break
            game.push(rng.choice(moves))
        if not game.is_over():
            out.append(game)
    return out


@pytest.mark.parametrize("token", ["cups[cups=3,beans=6]", "cups[beans=6,count-left]", "cups[cups=4,beans=8]"])
def test_move_values_of_played_positions_match_plain_minimax(token):
    solver = ExactSolver(variant(token))
    for game in random_positions(token, 15, seed=len(token)):
        ranked = solver.move_values(game)
        assert [mv.value for mv in ranked] == sorted((mv.value for mv in ranked), reverse=True)
        assert ranked[0].value == reference(game) == solver.value(game)
        for mv in ranked:
            me = game.turn
            game.push(mv.move)
            child = reference(game)
            expected = child if game.turn == me else -child
            game.pop()
            assert mv.exact and mv.value == expected, (game.text(), mv)


def test_a_pass_is_valued_through_the_other_player():
    game = parse_position("cups[cups=3,beans=6] S 4 0 0 | 2 | 0 / N 0 0 0 | 0 | 6 ; S to move")
    assert game.legal_moves() == [Pass()]
    solver = ExactSolver(game.rules)
    (only,) = solver.move_values(game)
    assert only.value == reference(game) == solver.value(game)


def test_search_to_the_end_is_proven_and_exact():
    for game in random_positions("cups[beans=6]", 6, seed=3):
        result = search_moves(game, fixed_depth=100)
        assert result.exact
        assert [mv.value for mv in result.moves][0] == reference(game)


def test_search_of_a_big_game_says_its_depth_and_that_it_is_not_proven():
    game = variant("cups[cups=6]").new_game()
    result = search_moves(game, fixed_depth=4)
    assert result.depth == 4 and not result.exact
    assert {mv.move for mv in result.moves} == set(game.legal_moves())
    timed = search_moves(game, seconds=0.3)
    assert timed.depth >= 4 and not timed.exact and timed.nodes > 0


def test_budget_gives_up_without_a_wrong_answer():
    game = variant("cups").new_game()
    solver = ExactSolver(game.rules, 16)
    assert solver.value(game, budget=1000) is None
    small = variant("cups[beans=5]").new_game()
    solver = ExactSolver(small.rules, 4)  # tiny table: it must grow, not give up
    assert solver.value(small) == reference(small)
    assert solver.keys.shape[0] > 16


def test_prepared_table_saves_and_loads(tmp_path):
    rules = variant("cups[cups=3,beans=9]")
    path = tmp_path / "t.npz"
    built = prepare(rules, path)
    loaded = ExactSolver.load(path, rules)
    assert loaded.entries == built.entries > 0
    game = rules.new_game()
    assert [mv.value for mv in loaded.move_values(game, budget=0)] == [mv.value for mv in built.move_values(game)]
    with pytest.raises(ValueError, match="a table for"):
        ExactSolver.load(path, variant("cups[cups=3,beans=8]"))


# -- hints -----------------------------------------------------------------------------------

def test_exact_hint_values_in_beans_and_ranks_alternatives():
    game = parse_position("cups[cups=3,beans=6] S 0 0 0 | 0 | 6 / N 0 2 0 | 0 | 4 ; S to move")
    h = hint(game, "full", seconds=5)
    assert h.exact and h.level == "full" and h.score is None
    best = reference(game)
    words = ("level with perfect play" if best == 0 else
             f"{'wins' if best > 0 else 'loses'} by {abs(best)} bean{'s' if abs(best) != 1 else ''} with perfect play")
    assert h.value == words
    assert [a.text for a in h.alternatives][0] == h.text
    assert {a.move for a in h.alternatives} == set(game.legal_moves())
    assert "perfect play" in h.alternatives[-1].value


def test_hint_reason_names_the_capture_and_the_threat():
    # South's drop of 2 lands in the empty cup 2 and takes North's cup 2 (2 beans, which North
    # could sow next); North's drop of 3 can then take South's cup 1 (2 beans)
    game = parse_position("cups[cups=3,beans=12] S 1 0 0 | 0 | 11 / N 0 2 0 | 0 | 10 ; S to move")
    h = hint(game, "full", seconds=5)
    assert reference(game) == 1
    assert h.text == "d2x" and h.value == "wins by 1 bean with perfect play"
    assert "Captures the 2 beans opposite: the last bean lands in your empty cup 2 and takes North's cup 2" in h.reason
    assert "North can then take 2 beans with d3x (from your cup 1)" in h.reason
    # leaving a blocked cup to be taken later can be worth more than taking it now
    blocked = parse_position("cups[cups=3,beans=12] S 1 0 0 | 0 | 11 / N 0 5 0 | 0 | 7 ; S to move")
    assert hint(blocked, "full", seconds=5).text == "d1"
    assert reference(blocked) == 14


def test_hint_for_a_forced_pass_and_after_the_end():
    game = parse_position("cups S 5 0 0 0 | 35 | 0 / N 0 0 0 0 | 0 | 40 ; S to move")
    h = hint(game, "club")
    assert h.move == Pass() and "must pass" in h.reason
    over = parse_position("cups S 5 0 0 0 | 30 | 0 / N 1 0 0 0 | 44 | 0 ; game over")
    with pytest.raises(ValueError, match="game is over"):
        hint(over)


def test_levels_and_search_hints():
    assert list(LEVELS) == ["beginner", "casual", "club", "strong", "full"]
    assert level(3).name == "club"
    with pytest.raises(ValueError, match="unknown level"):
        level("grandmaster")
    game = variant("cups[cups=6]").new_game()
    h = hint(game, "club")
    assert not h.exact and h.depth == 4 and "searched 4 plies, not proven" in h.value
    assert h.move in game.legal_moves()
    beginner = [hint(game, "beginner", rng=random.Random(seed)).move for seed in range(20)]
    assert all(m in game.legal_moves() for m in beginner)


def test_full_hint_on_a_twenty_bean_position_is_exact():
    game = parse_position("cups S 2 0 2 1 | 23 | 5 / N 3 3 2 0 | 24 | 15 ; S to move")
    h = hint(game, "full", seconds=10)
    assert h.exact and h.value.endswith("with perfect play")
    assert solver_for(game.rules) is solver_for(game.rules)
    assert table_path(game.rules).name == "cups.npz"


def test_prepare_command_writes_the_table_where_hints_look(capsys):
    from engine.cups.hints import main

    assert main(["prepare", "cups[cups=3,beans=7]"]) == 0
    rules = variant("cups[cups=3,beans=7]")
    assert table_path(rules).exists()
    assert "start value" in capsys.readouterr().out
    assert ExactSolver.load(table_path(rules), rules).value(rules.new_game()) == reference(rules.new_game())
    assert main(["prepare", "cups[cups=12]"]) == 2
    assert "3 to 10" in capsys.readouterr().err


def test_a_table_of_an_older_layout_is_refused_and_hints_start_cold(tmp_path, monkeypatch):
    import numpy as np

    from engine.cups import hints

    rules = variant("cups[cups=3,beans=5]")
    path = tmp_path / "old.npz"
    # the first layout had no format field; its bounds would be misread by today's kernel
    np.savez(path, keys=np.zeros(4, dtype=np.int64), bounds=np.zeros(4, dtype=np.int32),
             token=rules.token, filled=0)
    with pytest.raises(ValueError, match="older layout"):
        ExactSolver.load(path, rules)
    monkeypatch.setenv("CUPBOARD_CACHE", str(tmp_path))
    hints._SOLVERS.pop(rules.token, None)
    path.rename(table_path(rules))
    game = rules.new_game()
    solver = solver_for(rules)
    assert solver.entries == 0 and solver.value(game) == reference(game)
    hints._SOLVERS.pop(rules.token, None)


# -- issue 22: the faster proof and the fitted evaluation ---------------------------------------

def built_positions(token, n, seed, stock_total):
    """Positions built at random rather than played: cups at or below their sowing count, now
    and then a blocked cup (the static bounds' case), ``stock_total`` beans split between the
    stocks, the rest in the bowls."""
    rules = variant(token)
    x = rules.cups
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        game = rules.new_game()
        s = rng.randint(0, stock_total)
        game.stocks = [s, stock_total - s]
        for p in (0, 1):
            game.cups[p] = [rng.randint(0, x - i) for i in range(x)]
        for _ in range(rng.randint(0, 2)):
            p, i = rng.randint(0, 1), rng.randint(0, x - 1)
            game.cups[p][i] = x - i + rng.randint(1, 4)
        rest = 2 * rules.beans - stock_total - sum(map(sum, game.cups))
        if rest < 0:
            continue
        game.bowls = [rest // 2, rest - rest // 2]
        game.turn = rng.randint(0, 1)
        if not game.is_over():
            out.append(game)
    return out


@pytest.mark.parametrize("token", ["cups[beans=12]", "cups[beans=12,count-left]", "cups[cups=3,beans=10]"])
def test_built_positions_with_blocked_cups_match_plain_minimax(token):
    # one solver for all: its table (bounds and best moves) carries over between positions
    solver = ExactSolver(variant(token))
    for game in built_positions(token, 12, seed=len(token), stock_total=7):
        ranked = solver.move_values(game)
        assert ranked[0].value == reference(game)
        for mv in ranked:
            me = game.turn
            game.push(mv.move)
            expected = reference(game) if game.turn == me else -reference(game)
            game.pop()
            assert mv.value == expected, (game.text(), mv)


def test_an_aborted_proof_leaves_only_true_bounds():
    # the slowest position before issue 22; a tiny budget gives up, and the same solver (its
    # table now holding bounds from the aborted passes) then answers what a fresh one does
    game = parse_position("cups S 4 1 2 1 | 23 | 2 / N 2 3 0 1 | 23 | 18 ; S to move")
    solver = ExactSolver(game.rules)
    assert solver.move_values(game, budget=500) is None
    assert solver.value(game, budget=50) is None
    fresh = ExactSolver(game.rules)
    assert [(m.move, m.value) for m in solver.move_values(game)] == \
        [(m.move, m.value) for m in fresh.move_values(game)]
    assert fresh.value(game) == fresh.move_values(game)[0].value


def test_features_of_a_hand_built_position():
    import numpy as np

    from engine.cups import kernel

    # South (to move): cup 1 empty, cup 2 holds 3 (its distance: sowable), cup 3 holds 5
    # (blocked), cup 4 holds 0; North: cup 1 holds 2, cup 4 holds 1 (sowable), the rest empty
    game = parse_position("cups S 0 3 5 0 | 20 | 7 / N 2 0 0 1 | 20 | 22 ; S to move")
    f = np.empty(kernel.FEATURES)
    kernel.features(np.array(game.cups), np.array(game.stocks), game.turn, 4, f)
    assert f[kernel.F_SOWABLE] == 1 - 1
    assert f[kernel.F_BLOCKED] == 5 - 0
    # South's drop of 1 lands in the empty cup 1 and takes North's cup 4 (1 bean); d4 would
    # take North's cup 1 (2 beans)
    assert f[kernel.F_MY_CAPTURE] == 2
    # North's drop of 2 lands in its empty cup 2, opposite South's cup 3 (5 beans)
    assert f[kernel.F_THEIR_CAPTURE] == 5
    assert f[kernel.F_STOCK] == 7 - 22
    assert f[kernel.F_WAITING] == 0 - 2
    assert f[kernel.F_TEMPO] == 1
    # the first evaluation is the same terms with hand weights: +1/2 a sowable cup, -1/2 a
    # blocked bean, in quarter beans
    assert kernel.evaluate(np.array(game.cups), np.array(game.stocks), 0, 4, kernel.SIMPLE_WEIGHTS) == 4 * (0 - 2.5)
    north = kernel.evaluate(np.array(game.cups), np.array(game.stocks), 1, 4, kernel.SIMPLE_WEIGHTS)
    assert north == -4 * (0 - 2.5)


def test_the_search_table_is_kept_and_still_exact():
    from engine.cups.solve import SearchMemo

    for game in random_positions("cups[beans=6]", 4, seed=9):
        memo = SearchMemo.new(12)
        first = search_moves(game, fixed_depth=100, memo=memo)
        again = search_moves(game, fixed_depth=100, memo=memo)
        assert first.exact and again.exact
        assert first.moves[0].value == again.moves[0].value == reference(game)
        assert {mv.move: mv.value for mv in first.moves} == {mv.move: mv.value for mv in again.moves}
        # proven entries answer the second search at once
        assert again.nodes < first.nodes or first.nodes < 50


@pytest.mark.parametrize("aspiration", [1, 8])
def test_deepening_with_narrow_root_windows_scores_like_one_open_search(monkeypatch, aspiration):
    from engine.cups import solve

    # a quarter-bean window makes most root moves fall outside it and be searched again
    monkeypatch.setattr(solve, "ASPIRATION", aspiration)
    game = variant("cups[cups=6]").new_game()
    for _ in range(3):
        game.push(game.legal_moves()[-1])
    deepened = search_moves(game, seconds=1000, max_depth=7)  # depths 1..7, windows from the last
    assert deepened.depth == 7 and not deepened.exact
    assert {mv.move for mv in deepened.moves} == set(game.legal_moves())
    fixed = search_moves(game, fixed_depth=7)
    assert {mv.move: mv.value for mv in fixed.moves} == {mv.move: mv.value for mv in deepened.moves}
