"""The search's fast paths agree with the slow ones they replace: the flat bitboard tables, the
quiescence step's targets and replies, and the order of the generated moves."""

import random

import pytest
from helpers import random_positions

from engine import variant
from engine.gobblet.bitboard_tables import (
    completing_table,
    first_line_table,
    hot_lines_table,
    square_table,
    threat_lines_table,
)
from engine.gobblet.evaluation import (
    line_score,
    line_terms,
    masked_line_terms,
    packed_line_score,
)
from engine.gobblet.geometry import geometry, squares_of
from engine.gobblet.movegen import (
    BLOCK_BONUS,
    CAPTURE_BONUS,
    KILLER_BONUS,
    THREAT_BONUS,
    moves_to,
    ordered_moves,
)
from engine.gobblet.rules import ENTRY_DEFENSIVE, ENTRY_EMPTY, ENTRY_FREE, VARIANTS
from engine.gobblet.tactics import threat_lines, threat_targets
from engine.gobblet.search.threat_replies import threat_replies


def _lines_showing(geo, bb, at_least):
    """The lines in which the tops ``bb`` show ``at_least`` squares (all but one: exactly)."""
    need = geo.line_length - 1
    return [line for line in geo.lines
            if (bb & line).bit_count() >= need and (at_least or (bb & line).bit_count() == need)]


def _union(lines):
    out = 0
    for line in lines:
        out |= line
    return out


@pytest.mark.parametrize("size,line", [(3, 3), (4, 4), (5, 5), (5, 4)])
def test_bitboard_tables_give_what_the_functions_compute(size, line):
    geo = geometry(size, line)
    rng = random.Random(size * 10 + line)
    n = size * size
    boards = range(1 << n) if n <= 16 else [rng.getrandbits(n) & rng.getrandbits(n) for _ in range(20000)]
    sq, co = square_table(n), completing_table(size, line)
    hot, threat = hot_lines_table(size, line), threat_lines_table(size, line)
    for bb in boards:
        assert sq[bb] == tuple(squares_of(bb))
        short = _lines_showing(geo, bb, at_least=False)
        assert co[bb] == _union(short) & ~bb
        assert hot[bb] == _union(_lines_showing(geo, bb, at_least=True))
        assert threat[bb] == _union(short)
    first = first_line_table(size, line)
    for bb in boards:
        full = [ln for ln in geo.lines if bb & ln == ln]
        assert first[bb] == (full[0] if full else 0)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_threat_targets_and_replies_agree_with_tactics_and_movegen(name):
    rng = random.Random(7)
    fast = threat_replies(variant(name))
    checked = 0
    for board in random_positions(name, 12, 31, 36):
        for colour in (0, 1):
            assert fast.targets(board, colour) == threat_targets(board, colour), board.text()
        full = board.geo.full
        some = rng.getrandbits(board.rules.squares) & full
        for targets in [threat_targets(board, 1 - board.turn), full, some]:
            assert list(fast.replies(board, targets)) == moves_to(board, targets), board.text()
            checked += 1
    assert checked > 100


def _makes_threat(board, mv):
    """True when the mover's tops after ``mv`` (what a lift uncovers left out) have a square
    completing a line that the tops before did not have."""
    geo = board.geo
    mine = board.tops[board.turn]
    after = (mine | 1 << mv[1]) & ~(0 if mv[2] is None else 1 << mv[2])

    def holes(bb):
        return _union(_lines_showing(geo, bb, at_least=False)) & ~bb

    return bool(holes(after) & ~holes(mine))


def _reference_order(board, tried, killers, history, threats=False):
    """The move order the search had before ``ordered_moves`` was tuned (written plainly);
    with ``threats``, moves that make a new threat get ``THREAT_BONUS``."""
    c = board.turn
    mine, theirs = board.tops[c], board.tops[1 - c]
    empty = board.geo.full ^ (mine | theirs)
    below = [empty]
    for s in range(1, board.rules.sizes + 1):
        below.append(below[-1] | (board.size_bb[s - 1] if s > 1 else 0))
    hot = 0
    for line in threat_lines(board, 1 - c):
        hot |= line
    kill = [k for k in killers if k is not None and k not in tried]
    entry = board.rules.entry
    moves = []
    for s in range(board.rules.sizes, 0, -1):
        if not board.reserve[c][s]:
            continue
        if entry == ENTRY_FREE:
            targets = below[s]
        elif entry == ENTRY_EMPTY or not hot:
            targets = empty
        elif entry == ENTRY_DEFENSIVE:
            targets = empty | (below[s] & hot & theirs)
        else:
            targets = empty | (below[s] & hot)
        moves += [(s, to, None) for to in squares_of(targets)]
    for frm in squares_of(mine):
        s = board.stacks[frm][-1] >> 1
        moves += [(s, to, frm) for to in squares_of(below[s] & ~(1 << frm))]

    def value(mv):
        v = history.get(mv, 0) + mv[0]
        v += BLOCK_BONUS if hot >> mv[1] & 1 else 0
        v += CAPTURE_BONUS if theirs >> mv[1] & 1 else 0
        v += THREAT_BONUS if threats and _makes_threat(board, mv) else 0
        return v + (KILLER_BONUS if mv in kill else 0)

    return sorted((mv for mv in moves if mv not in tried), key=value, reverse=True)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_ordered_moves_keep_the_reference_order(name):
    rng = random.Random(3)
    for board in random_positions(name, 8, 17, 36):
        legal = [tuple(m) for m in board.legal_moves()]
        history = {m: rng.choice([0, 1, 4, 9, 4, 1 << 20]) for m in legal if rng.random() < 0.5}
        for _ in range(3):
            tried = tuple(rng.sample(legal, min(len(legal), rng.randint(0, 3))))
            killers = [rng.choice(legal + [None]), rng.choice(legal + [None])]
            expected = _reference_order(board, tried, killers, history)
            assert ordered_moves(board, tried, killers, history) == expected
            expected = _reference_order(board, tried, killers, history, threats=True)
            assert ordered_moves(board, tried, killers, history, threats=True) == expected


def _random_tops(squares: int, seed: int, count: int = 3000):
    """``count`` random (own tops, opponent's tops, largest pieces among them) bitboards."""
    rng = random.Random(seed)
    for _ in range(count):
        occupied = rng.getrandbits(squares)
        own = occupied & rng.getrandbits(squares)
        big = occupied & rng.getrandbits(squares) & rng.getrandbits(squares)
        yield own, occupied & ~own, big


@pytest.mark.parametrize("name", [*VARIANTS, "gobblet[board=5,line=4]"])
def test_packed_line_terms_sum_to_the_line_score(name):
    rules = variant(name)
    geo = geometry(rules.board, rules.line)
    own_terms, opp_terms = line_terms(rules)
    for own, opp, big in _random_tops(rules.squares, 9):
        total = 0
        for line in geo.lines:
            a, b = own & line, opp & line
            if a and not b:
                total += own_terms[a, a & big]
            elif b and not a:
                total += opp_terms[b, b & big]
        assert packed_line_score(total) == line_score(rules, own, opp, big)


@pytest.mark.parametrize("name", [*VARIANTS, "gobblet[board=5,line=4]"])
def test_masked_line_terms_give_the_packed_terms(name):
    # the frontier reads a line's term with one mask and one look-up (``masked_line_terms``)
    rules = variant(name)
    geo = geometry(rules.board, rules.line)
    own_terms, opp_terms = line_terms(rules)
    masks, terms = masked_line_terms(rules)
    assert len(masks) == len(geo.lines)
    n = rules.squares
    for own, opp, big in _random_tops(n, 11):
        key = own | opp << n | big << 2 * n
        for line, mask in zip(geo.lines, masks):
            a, b = own & line, opp & line
            want = own_terms[a, a & big] if a and not b else opp_terms[b, b & big] if b and not a else 0
            assert terms[key & mask] == want


def test_memos_shared_across_searches_keep_geometries_apart():
    # one process searching boards of the same size with other line lengths (and the other
    # way round) must not mix their memos up: each fast search equals the slow one
    from engine.gobblet.search.searcher import Searcher, SearchLimits

    limits = SearchLimits(time=None, depth=2)
    for _ in range(2):
        for token in ["goblet-5", "gobblet[board=5,line=4]", "gobblet", "gobblet[line=3]", "gobblet-jr"]:
            for k, board in enumerate(random_positions(token, 3, 41, 16)):
                if k % 5 or board.outcome() is not None:
                    continue
                fast = Searcher().search(board, limits, multipv=2)
                slow = Searcher(_fast_frontier=False).search(board, limits, multipv=2)
                got, want = (fast.score, fast.nodes, fast.ranked), (slow.score, slow.nodes, slow.ranked)
                assert got == want, (token, board.text())
