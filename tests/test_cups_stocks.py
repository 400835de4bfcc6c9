"""The reader's estimate of a stock's beans on rendered tables: a heap that covers most of a
saucer's floor gives an honest range with a low confidence, never "none, surely".

Before issue 23's third look, a stock of 50 beans covering its floor read as 0-1 beans with a
confidence of 0.9: the floor's noise was taken from its quietest pixels, all beans there, so
nothing stood out.  The tables are seeds 6000+ (the reader was tuned on 0-7)."""

import pytest

from tests.cups_streams import read_middle_game


def stocks_of_at_least(name: str, style: str, seed: int, beans: int):
    """The middle-game table's reading (``read_middle_game``) and its stocks holding at least
    ``beans`` beans, as (container index, count); asserts there is one (the test's case)."""
    layout, state, reading = read_middle_game(name, style, seed)
    x = layout.cups_per_row
    big = [(k, n) for k, n in zip((2 * x + 2, 2 * x + 3), state.stocks) if n >= beans]
    assert big, f"no stock of {beans} beans or more on this table: the case is gone"
    return reading, big


@pytest.mark.parametrize("name,style,seed", [("cups-6", "daylight", 6005), ("cups-4", "daylight", 6005)])
def test_a_heaped_stock_reads_as_a_range_that_holds_it(name, style, seed):
    reading, heaps = stocks_of_at_least(name, style, seed, 40)
    for k, truth in heaps:
        r = reading.containers[k]
        # a heap: its top is all that shows, so a range, and a low confidence in it
        assert r.count_low <= truth <= r.count_high, (k, truth, r)
        assert r.count_estimate >= truth / 2 and r.confidence < 0.5, (k, truth, r)


@pytest.mark.parametrize("name,style,seed", [("cups-4", "lamplight", 6002), ("cups-6", "daylight", 6002),
                                             ("cups-4", "daylight", 6004)])
def test_every_stock_reads_as_a_range_that_holds_it(name, style, seed):
    """Issue 23's fourth look: a stock not heaped over its saucer (50 beans covering 45 % of it
    read as 21-36, cups-4 lamplight 6002), or heaped of beans of many kinds (49 stones read as
    4-7 on cups-6 6002, 52 beads as 0-1 on cups-4 6004: their spread was taken for the floor's
    noise), still gives a range that holds its count, with an estimate inside it and no more
    confidence than a count of touching beans deserves."""
    reading, big = stocks_of_at_least(name, style, seed, 30)
    for k, truth in big:
        r = reading.containers[k]
        assert r.count_low <= truth <= r.count_high, (k, truth, r)
        assert r.count_low <= r.count_estimate <= r.count_high and r.confidence < 0.6, (k, truth, r)


@pytest.mark.parametrize("name,style,seed", [("cups-6", "daylight", 6101), ("cups-4", "daylight", 6105)])
def test_touching_beans_do_not_lift_a_bowls_or_stocks_low_end(name, style, seed):
    """Touching beans on a bowl's or a stock's open floor show more area each than a lone bean
    (the shadows between them): North's stock of 34 on cups-6 6101 read as 36-126 (an estimate
    of 81), the bowls of 13 and 9 on cups-4 6105 as 15-56 and 11-46.  Every bowl's and stock's
    range holds its count, and a heap's estimate stays near what its area shows."""
    layout, state, reading = read_middle_game(name, style, seed)
    x = layout.cups_per_row
    counts = state.as_counts()
    for k in range(2 * x, 2 * x + 4):
        r, truth = reading.containers[k], counts[k]
        assert r.count_low <= truth <= r.count_high, (k, truth, r)
        assert r.count_low <= r.count_estimate <= 1.5 * truth + 3, (k, truth, r)
