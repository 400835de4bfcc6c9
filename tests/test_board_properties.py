"""Property tests (hypothesis): random games in every variant keep the engine's invariants.

Each example plays a random game (seeded move choices) in one rule set and checks, at every
ply, piece conservation, push/pop restoring everything, the incremental hash against a rebuild
from the position text, the move counter, the move checker, and the move generator against a
plain reference written straight from shared/RULES.md.
"""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.gobblet import Board, Move, Rules
from engine.gobblet.board import buried_balance

RULE_SETS = [
    "gobblet",
    "gobblet-jr",
    "storer",
    "goblet-5",
    "gobblet[board=5,line=4]",
    "gobblet[reserve=free,sizes=3,first=b]",
    "gobblet-jr[entry=defensive,per=3]",
    "storer[board=3,line=3,sizes=3,per=2]",
    "gobblet[entry=empty,per=2]",
]

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)


def _game(token, seed, plies, long_games):
    rng = random.Random(seed)
    return token, [rng.randrange(10**6) for _ in range(plies)], long_games


# a game: the rule set, the move choices (drawn from a seeded generator so that games can be
# long; hypothesis lists of integers stay short), and whether to avoid moves that end the game
# when there is another (random games otherwise end within a dozen plies)
games = st.builds(
    _game,
    st.sampled_from(RULE_SETS),
    st.integers(min_value=0, max_value=2**32),
    st.integers(min_value=1, max_value=80),
    st.booleans(),
)


def pick(board, moves, choice, long_games):
    """The move of ``moves`` that ``choice`` selects; with ``long_games``, among the moves
    that do not end the game if there are any."""
    if long_games:
        going_on = []
        for move in moves:
            board.push(move)
            if board.outcome() is None:
                going_on.append(move)
            board.pop()
        moves = going_on or moves
    return moves[choice % len(moves)]


def play_random(token, choices, long_games):
    """Yield the board after each ply of a game whose moves are picked by ``choices``."""
    board = Board(Rules.parse(token))
    yield board
    for choice in choices:
        moves = board.legal_moves()
        if not moves:
            return
        board.push(pick(board, moves, choice, long_games))
        yield board


# ----------------------------------------------------------------- reference move generator
def reference_lines(n, length):
    """Every winning line of an n x n board as a tuple of square indices (a1 = 0, b1 = 1, ...,
    rank r file f at r * n + f): rows, columns and both diagonal directions."""
    lines = set()
    for r in range(n):
        for f in range(n):
            for dr, df in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, f + k * df) for k in range(length)]
                if all(0 <= rr < n and 0 <= ff < n for rr, ff in cells):
                    lines.add(tuple(rr * n + ff for rr, ff in cells))
    return lines


def reference_moves(board):
    """The legal moves of the player to move, from the rulings, using only stacks and reserve
    tops (no bitboards)."""
    rules = board.rules
    me, opp = board.turn, 1 - board.turn
    tops = [board.top(i) for i in range(rules.squares)]
    lines = reference_lines(rules.board, rules.line)
    hot = {
        s
        for line in lines
        if sum(1 for s in line if tops[s] and tops[s][0] == opp) == rules.line - 1
        for s in line
    }
    moves = set()
    for size in set(board.reserve_tops(me)):
        for s, top in enumerate(tops):
            if top is None:
                ok = True
            elif top[1] >= size:
                ok = False
            elif rules.entry == "free":
                ok = True
            elif rules.entry == "defensive":
                ok = top[0] == opp and s in hot
            elif rules.entry == "storer":
                ok = s in hot
            else:
                ok = False
            if ok:
                moves.add(Move(size, s, None))
    for frm, top in enumerate(tops):
        if top and top[0] == me:
            for to, other in enumerate(tops):
                if to != frm and (other is None or other[1] < top[1]):
                    moves.add(Move(top[1], to, frm))
    return moves


def reference_outcome_after(board, mover):
    """(winner, reason) judged on lines after ``mover``'s move, or None."""
    lines = reference_lines(board.rules.board, board.rules.line)
    tops = [board.top(i) for i in range(board.rules.squares)]

    def shows(c):
        return any(all(tops[s] and tops[s][0] == c for s in line) for line in lines)

    if shows(1 - mover):
        return (1 - mover, "reveal")
    if shows(mover):
        return (mover, "line")
    return None


# ----------------------------------------------------------------- properties
@SETTINGS
@given(games)
def test_piece_counts_are_kept(game):
    """Board + reserve hold exactly per_size pieces of each colour and size, and stacks
    strictly increase in size from bottom to top."""
    for board in play_random(*game):
        rules = board.rules
        for colour in (0, 1):
            counts = dict.fromkeys(range(1, rules.sizes + 1), 0)
            for s in range(rules.squares):
                for c, size in board.stack(s):
                    if c == colour:
                        counts[size] += 1
            for size in board.reserve_pieces(colour):
                counts[size] += 1
            assert counts == dict.fromkeys(range(1, rules.sizes + 1), rules.per_size)
        for s in range(rules.squares):
            sizes = [size for _, size in board.stack(s)]
            assert sizes == sorted(set(sizes))


@SETTINGS
@given(games)
def test_push_pop_restores_everything(game):
    """After push then pop of every legal move: the exact position, hash, turn, outcome and
    legal move list are as before."""
    for board in play_random(*game):
        before = (board.key(), board.hash, board.turn, board.outcome(), board.legal_moves(), board.ply)
        for move in before[4]:
            board.push(move)
            assert board.pop() == move
            after = (board.key(), board.hash, board.turn, board.outcome(), board.legal_moves(), board.ply)
            assert after == before


@SETTINGS
@given(games)
def test_buried_balance_follows_the_stacks(game):
    """The incremental buried balance equals the count from the stacks after every push and
    every pop of each legal move."""
    for board in play_random(*game):
        assert board.buried == buried_balance(board.stacks)
        for move in board.legal_moves():
            board.push(move)
            assert board.buried == buried_balance(board.stacks)
            board.pop()
            assert board.buried == buried_balance(board.stacks)


@SETTINGS
@given(games)
def test_hash_and_text_agree_with_a_rebuilt_board(game):
    """The incremental hash equals the hash of the same position rebuilt from its text."""
    for board in play_random(*game):
        rebuilt = Board.from_text(board.text())
        assert rebuilt.key() == board.key()
        assert rebuilt.hash == board.hash
        assert rebuilt.text() == board.text()
        assert rebuilt.ply == board.ply


@SETTINGS
@given(games)
def test_generator_matches_the_reference_and_the_counter(game):
    """legal_moves() has no duplicates, equals the reference generator's set, and its length
    is count_legal_moves(); the outcome after each move is judged on the whole move."""
    token, choices, long_games = game
    board = Board(Rules.parse(token))
    for choice in choices:
        moves = board.legal_moves()
        assert board.count_legal_moves() == len(moves)
        if board.outcome() is not None:
            assert moves == []
            break
        assert len(set(moves)) == len(moves)
        assert set(moves) == reference_moves(board)
        if not moves:
            break
        mover = board.turn
        board.push(pick(board, moves, choice, long_games))
        expected = reference_outcome_after(board, mover)
        outcome = board.outcome()
        if expected is not None:
            assert (outcome.winner, outcome.reason) == expected
        else:
            assert outcome is None or outcome.reason in ("repetition", "no-moves")


@SETTINGS
@given(
    games,
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 24), st.one_of(st.none(), st.integers(0, 24))),
        min_size=5,
        max_size=20,
    ),
)
def test_listed_moves_pass_and_others_are_refused(game, probes):
    """Every listed move has illegal_reason() None; random other moves get a reason."""
    for board in play_random(*game):
        moves = set(board.legal_moves())
        for move in moves:
            assert board.illegal_reason(move) is None
        for size, to, frm in probes:
            n = board.rules.squares
            move = Move(size, to % n, None if frm is None else frm % n)
            reason = board.illegal_reason(move)
            if move in moves:
                assert reason is None
            else:
                assert isinstance(reason, str) and reason


@SETTINGS
@given(games)
def test_repetitions_count_exact_positions_and_popping_back_restores_the_start(game):
    """repetitions() is the number of times the exact position (Board.key()) has occurred;
    the game is drawn when that reaches 3 without a line; popping every move gives back the
    start."""
    token, choices, long_games = game
    board = Board(Rules.parse(token))
    start = (board.key(), board.hash, board.legal_moves())
    seen = [board.key()]
    for choice in choices:
        moves = board.legal_moves()
        if not moves:
            break
        mover = board.turn
        board.push(pick(board, moves, choice, long_games))
        seen.append(board.key())
        assert board.repetitions() == seen.count(board.key())
        if reference_outcome_after(board, mover) is None and seen.count(board.key()) >= 3:
            assert board.outcome().reason == "repetition"
    while board.can_pop:
        board.pop()
    assert (board.key(), board.hash, board.legal_moves()) == start
    assert board.repetitions() == 1 and board.ply == 0
