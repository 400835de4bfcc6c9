"""The tracker's judgement on observations built from known positions (no camera involved):
it explains stable boards by legal moves only, and names what it cannot explain."""

from engine.gobblet import Board
from engine import variant
from engine.gobblet.notation import format_moves
from vision.observation import CUP, EMPTY, OCCLUDED, Observation, SquareReading
from vision.tracking import (
    Ambiguous,
    Disagrees,
    Earlier,
    Explained,
    HiddenMismatch,
    IllegalPhysical,
    Tracker,
    TrackerConfig,
    Unchanged,
    board_labels,
    explain,
    to_view,
)

SIZES_4 = (1, 2, 3, 4)  # physical size class -> logical size


def observe(labels, conf=0.95, occluded=(), hand=False):
    """An observation that reads ``labels`` (engine tops) with confidence ``conf``."""
    readings = []
    for sq, label in enumerate(labels):
        if sq in occluded:
            readings.append(SquareReading(OCCLUDED, confidence=0.0))
        elif label is None:
            readings.append(SquareReading(EMPTY, confidence=conf))
        else:
            readings.append(SquareReading(CUP, label[0], label[1] - 1, conf))
    return Observation(tuple(readings), True, (0, 1, 2, 3), hand=hand)


def play(board, *texts):
    for t in texts:
        board.push(board.parse_move(t))
    return board


def view_after(board, *texts):
    after = play(board.copy(), *texts)
    return to_view(observe(board_labels(after)), SIZES_4, 0.5)


def test_unchanged_board():
    board = play(Board(variant("gobblet")), "4a1")
    assert explain(board, view_after(board)) == Unchanged()


def test_one_move_is_explained():
    board = play(Board(variant("gobblet")), "4a1", "4b2")
    verdict = explain(board, view_after(board, "3c3"))
    assert isinstance(verdict, Explained)
    assert [board.move_text(m) for m in verdict.moves] == ["3c3"]


def test_a_reveal_is_predicted_from_memory():
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3c3", "3d4", "4a1-d1")
    assert board.top(board.geo.square("a1")) is None
    board = play(Board(variant("gobblet-jr")), "1a1", "3xa1")
    verdict = explain(board, view_after(board, "2b2"))
    assert isinstance(verdict, Explained)
    # Black lifts its 3 from a1, revealing White's 1 that memory holds
    board.push(verdict.moves[0])
    verdict = explain(board, view_after(board, "3a1-c3"))
    assert [board.move_text(m) for m in verdict.moves] == ["3a1-c3"]


def test_two_quick_moves_are_explained_in_order():
    board = play(Board(variant("gobblet")), "4a1", "4b2")
    verdict = explain(board, view_after(board, "3c3", "3d4"))
    assert isinstance(verdict, Explained)
    assert len(verdict.moves) == 2


def test_swapped_hidden_piece_is_named():
    board = play(Board(variant("gobblet-jr")), "1a1", "3xa1", "2b2")
    labels = list(board_labels(play(board.copy(), "3a1-c3")))
    a1 = board.geo.square("a1")
    labels[a1] = (1, 1)  # the camera sees a dark 1 where memory says a light 1
    verdict = explain(board, to_view(observe(labels), (1, 2, 3), 0.5))
    assert isinstance(verdict, HiddenMismatch)
    assert verdict.square == a1 and verdict.expected == (0, 1) and verdict.seen == (1, 1)


def test_entry_on_own_piece_is_flagged_with_the_rule():
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3c3", "4d4")
    labels = list(board_labels(board))
    labels[board.geo.square("c3")] = (0, 4)  # White put a 4 from a stack over its own 3
    verdict = explain(board, to_view(observe(labels), SIZES_4, 0.5))
    assert isinstance(verdict, IllegalPhysical)
    assert "may not gobble your own piece" in verdict.reason


def test_out_of_turn_move_is_flagged():
    board = play(Board(variant("gobblet")), "4a1")
    labels = list(board_labels(board))
    labels[board.geo.square("c3")] = (0, 4)  # White again, but it is Black's turn
    verdict = explain(board, to_view(observe(labels), SIZES_4, 0.5))
    assert isinstance(verdict, IllegalPhysical)
    assert verdict.reason == "it is Black's turn"


def test_nonsense_board_disagrees_with_squares_named():
    board = play(Board(variant("gobblet")), "4a1", "4b2")
    labels = list(board_labels(board))
    for name in ("c1", "c2", "c3"):
        labels[board.geo.square(name)] = (1, 2)
    verdict = explain(board, to_view(observe(labels), SIZES_4, 0.5))
    assert isinstance(verdict, Disagrees)
    assert [board.geo.names[s] for s in verdict.squares] == ["c1", "c2", "c3"]


def _pairs_by_tops(board):
    """Every two-move continuation of ``board`` whose moves both show in the picture (the
    second neither covers nor carries on the first's cup), grouped by the tops it leaves."""
    groups = {}
    for first in board.legal_moves():
        board.push(first)
        if board.outcome() is None:
            for second in board.legal_moves():
                if first.to in (second.to, second.frm):
                    continue
                board.push(second)
                groups.setdefault(board_labels(board), []).append((first, second))
                board.pop()
        board.pop()
    return groups


def test_ambiguous_pairs_are_not_guessed():
    """When two different pairs of moves leave the same tops (they differ in what is hidden),
    the tracker must ask, not pick one."""
    board = play(Board(variant("gobblet-jr")), "1a1", "2b2")
    groups = _pairs_by_tops(board)
    tops, pairs = next((t, p) for t, p in groups.items() if len(p) > 1)
    verdict = explain(board, to_view(observe(tops), (1, 2, 3), 0.5))
    assert isinstance(verdict, Ambiguous)
    assert {c.moves for c in verdict.candidates} == set(pairs)
    unique_tops, (pair,) = next((t, p) for t, p in groups.items() if len(p) == 1)
    verdict = explain(board, to_view(observe(unique_tops), (1, 2, 3), 0.5))
    assert isinstance(verdict, Explained) and verdict.moves == pair


class Clock:
    def __init__(self):
        self.t = 0.0

    def tick(self, dt=0.1):
        self.t += dt
        return self.t


def feed(tracker, board, obs, clock, frames, motion=False):
    events = []
    for _ in range(frames):
        events += tracker.update(board, obs, clock.tick(), motion)
    return events


def reach(tracker, board, labels, squares, clock, frames=2):
    """A hand over ``squares`` (the camera sees them hidden) while the board shows ``labels``."""
    return feed(tracker, board, observe(labels, occluded=set(squares), hand=True), clock, frames)


def test_stream_commits_once_after_the_settle_time():
    board = play(Board(variant("gobblet")), "4a1")
    tracker = Tracker(SIZES_4, TrackerConfig(settle_s=0.5))
    clock = Clock()
    after = board_labels(play(board.copy(), "4b2"))
    hand = observe(after, occluded={5, 6, 9, 10}, hand=True)
    assert not [e for e in feed(tracker, board, hand, clock, 5) if e.kind == "moves"]
    events = feed(tracker, board, observe(after), clock, 4)
    assert not [e for e in events if e.kind == "moves"]  # 0.3 s: not settled yet
    events = feed(tracker, board, observe(after), clock, 10)
    moves = [e for e in events if e.kind == "moves"]
    assert len(moves) == 1 and moves[0].text == "4b2"


def test_single_frame_misread_is_not_a_move():
    board = play(Board(variant("gobblet")), "4a1")
    tracker = Tracker(SIZES_4)
    clock = Clock()
    still = observe(board_labels(board))
    misread = list(board_labels(board))
    misread[5] = (1, 4)
    events = feed(tracker, board, still, clock, 8)
    events += feed(tracker, board, observe(misread), clock, 1)
    events += feed(tracker, board, still, clock, 8)
    assert not [e for e in events if e.kind in ("moves", "pending", "disagrees", "illegal")]


def test_low_confidence_move_waits_for_a_person():
    board = play(Board(variant("gobblet")), "4a1")
    tracker = Tracker(SIZES_4, TrackerConfig(commit_confidence=0.8))
    clock = Clock()
    after = observe(board_labels(play(board.copy(), "4b2")), conf=0.6)
    events = feed(tracker, board, after, clock, 10)
    assert [e.kind for e in events if e.kind in ("moves", "pending")] == ["pending"]


def test_touch_move_lift_then_other_piece_moved():
    board = play(Board(variant("gobblet-jr")), "1a1", "3xa1", "3b2")
    # Black to move lifts its 3 from a1 (the camera sees White's 1 under it), then puts it back
    tracker = Tracker((1, 2, 3))
    clock = Clock()
    lifted = list(board_labels(board))
    lifted[board.geo.square("a1")] = (0, 1)
    events = feed(tracker, board, observe(lifted, hand=True), clock, 3)
    assert [e.kind for e in events] == ["lifted"]
    events = feed(tracker, board, observe(board_labels(board)), clock, 10)
    assert "touch-move" in [e.kind for e in events]


def test_no_lift_is_judged_while_something_unseen_moves():
    """A pale palm over pale wood can hide a cup without being seen as a hand: the square then
    reads as what lies under the top (here: empty) while the frames move.  Such frames judge
    no lift, so no touch is charged to anyone."""
    board = play(Board(variant("gobblet-jr")), "1a1", "3b2", "1c3")  # Black to move
    tracker = Tracker((1, 2, 3))
    clock = Clock()
    hidden = list(board_labels(board))
    hidden[board.geo.square("a1")] = None  # White's 1 on a1 hidden by Black's unseen palm
    events = feed(tracker, board, observe(hidden, hand=False), clock, 4, motion=True)
    assert events == []
    assert not tracker.touched_opponent
    # the same reading with the hand seen elsewhere is a lift of the opponent's piece
    feed(tracker, board, observe(hidden, hand=True), clock, 3)
    assert tracker.touched_opponent == {board.geo.square("a1")}


def test_doubtful_move_is_committed_when_a_later_state_confirms_it():
    """A move seen with low confidence waits; when the next stable state (after hands) is
    explained by that move and the reply, the move that waited is committed.  The later state
    vouches for it, not for the reply: read no surer, the reply waits on its own (accounts
    that grew past a waiting move by a misread made false moves on the held-out look)."""
    board = play(Board(variant("gobblet")), "4a1")
    tracker = Tracker(SIZES_4, TrackerConfig(commit_confidence=0.8))
    clock = Clock()
    first = board_labels(play(board.copy(), "4b2"))
    reach(tracker, board, first, {board.geo.square("b2")}, clock)
    events = feed(tracker, board, observe(first, conf=0.6), clock, 10)
    assert [e.kind for e in events if e.kind in ("moves", "pending")] == ["pending"]
    second = board_labels(play(board.copy(), "4b2", "3c3"))
    reach(tracker, board, second, {board.geo.square("c3")}, clock, 3)
    events = feed(tracker, board, observe(second, conf=0.6), clock, 10)
    moves = [e for e in events if e.kind == "moves"]
    assert [e.text for e in moves] == ["4b2"]
    board.push(moves[0].verdict.moves[0])
    events = feed(tracker, board, observe(second, conf=0.6), clock, 3)
    assert not [e for e in events if e.kind == "moves"]
    assert [e.text for e in events if e.kind == "pending"] == ["3c3"]
    # read plainly, the reply needs no one
    third = tracker.update(board, observe(second, hand=True), clock.tick())
    events = third + feed(tracker, board, observe(second), clock, 10)
    assert [e.text for e in events if e.kind == "moves"] == ["3c3"]


BACK_AND_FORTH = ("3a1", "3c3", "3a1-b1", "3c3-c2", "3b1-a1", "3c2-c3")


def test_a_move_back_to_an_earlier_position_is_a_move():
    """Repetitions happen by moving back: in sync, one legal move explains the board."""
    board = play(Board(variant("gobblet-jr")), *BACK_AND_FORTH)
    verdict = explain(board, to_view(observe(board_labels(play(board.copy(), "3a1-b1"))), (1, 2, 3), 0.5))
    assert isinstance(verdict, Explained) and board.move_text(verdict.moves[0]) == "3a1-b1"


def test_after_a_restart_earlier_positions_are_the_past_not_moves():
    """A resumed game's camera shows earlier positions first: reported as the past (even the
    one a legal move would also explain: after 3 moves), then the game continues when the board
    matches.  (After 2 moves the tops were as they are now, so that picture is skipped.)"""
    board = play(Board(variant("gobblet-jr")), *BACK_AND_FORTH)
    tracker = Tracker((1, 2, 3))
    tracker.expect_resync()
    clock = Clock()
    events = []
    replayed = [0, 1, 3, 4, 5]
    for k in replayed:
        past = play(Board(variant("gobblet-jr")), *BACK_AND_FORTH[:k])
        events += feed(tracker, board, observe(board_labels(past)), clock, 8)
        events += feed(tracker, board, observe(board_labels(past), hand=True, occluded={4}), clock, 2)
    behind = [e for e in events if e.kind == "behind"]
    assert [e.verdict.ply for e in behind] == replayed
    assert isinstance(behind[0].verdict, Earlier)
    assert not [e for e in events if e.kind in ("moves", "pending", "lifted", "disagrees")]
    events = feed(tracker, board, observe(board_labels(board)), clock, 8)
    assert "restored" in [e.kind for e in events]
    after = board_labels(play(board.copy(), "3a1-b1"))
    events = reach(tracker, board, after, {0, 1}, clock)
    events += feed(tracker, board, observe(after), clock, 8)
    assert [e.text for e in events if e.kind == "moves"] == ["3a1-b1"]


def test_one_odd_frame_does_not_restart_settling():
    """A single frame with motion but no hand (a glitch, a flash) is skipped; two restart."""
    board = play(Board(variant("gobblet")), "4a1")
    after = board_labels(play(board.copy(), "4b2"))
    still = observe(after)
    b2 = board.geo.square("b2")
    tracker = Tracker(SIZES_4, TrackerConfig(settle_s=0.5))
    clock = Clock()
    reach(tracker, board, after, {b2}, clock)
    events = feed(tracker, board, still, clock, 3) + feed(tracker, board, still, clock, 1, motion=True)
    events += feed(tracker, board, still, clock, 3)
    assert [e.text for e in events if e.kind == "moves"] == ["4b2"]
    tracker = Tracker(SIZES_4, TrackerConfig(settle_s=0.5))
    reach(tracker, board, after, {b2}, clock)
    events = feed(tracker, board, still, clock, 3) + feed(tracker, board, still, clock, 2, motion=True)
    events += feed(tracker, board, still, clock, 3)
    assert not [e for e in events if e.kind == "moves"]


def test_a_doubtful_square_neither_blocks_nor_makes_a_move():
    """A square the camera doubts in every frame does not stop the board settling; a move
    elsewhere is committed, and a move that depends on the doubtful square only waits."""
    board = play(Board(variant("gobblet")), "4a1", "4b2")
    tracker = Tracker(SIZES_4, TrackerConfig(commit_confidence=0.8))
    clock = Clock()
    after = list(board_labels(play(board.copy(), "3c3")))
    doubtful = observe(after)
    readings = list(doubtful.squares)
    d4 = board.geo.square("d4")
    readings[d4] = SquareReading(EMPTY, confidence=0.2)  # an empty square read with doubt
    reach(tracker, board, after, {board.geo.square("c3")}, clock)
    events = feed(tracker, board, Observation(tuple(readings), True, (0, 1, 2, 3)), clock, 10)
    moves = [e for e in events if e.kind == "moves"]
    assert len(moves) == 1 and moves[0].text == "3c3"
    board.push(moves[0].verdict.moves[0])
    # Black moves its 4 from b2 to d1 while b2 is read with doubt: the move waits for a person
    moved = list(board_labels(play(board.copy(), "4b2-d1")))
    readings = list(observe(moved).squares)
    readings[board.geo.square("b2")] = SquareReading(EMPTY, confidence=0.2)
    reach(tracker, board, moved, {board.geo.square("b2"), board.geo.square("d1")}, clock)
    events = feed(tracker, board, Observation(tuple(readings), True, (0, 1, 2, 3)), clock, 10)
    assert not [e for e in events if e.kind == "moves"]
    assert [e.kind for e in events if e.kind in ("pending", "ambiguous")]


def test_three_quick_moves_under_one_hand_are_explained():
    """When the board was hidden through three moves, the three legal moves that account for
    every changed square are found (fewer moves are always tried first)."""
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3c3", "4d4", "4a1-b1", "3c2")
    verdict = explain(board, view_after(board, "4a3", "3d1", "2a2"), max_moves=3)
    # White's two moves could have come in either order: the picture cannot tell, so a
    # person chooses; both orders reach the same position
    assert isinstance(verdict, Ambiguous)
    orders = sorted(format_moves(board, c.moves) for c in verdict.candidates)
    assert orders == [["2a2", "3d1", "4a3"], ["4a3", "3d1", "2a2"]]
    assert len({play(board.copy(), *order).key() for order in orders}) == 1
    assert not isinstance(explain(board, view_after(board, "4a3", "3d1", "2a2"), max_moves=2), (Explained, Ambiguous))
    # the simplest account wins: a piece entered and then moved on reads as entered there
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3c3")
    verdict = explain(board, view_after(board, "3c2", "4a1-b1", "3c2-d1"), max_moves=3)
    assert isinstance(verdict, Explained)
    assert format_moves(board, verdict.moves) == ["3d1", "4a1-b1"]


def test_a_misread_square_is_not_explained_by_moves_the_picture_cannot_show():
    """One move plus a square misread as a light cup: three moves could 'explain' it (the
    opponent enters a cup there and light covers it at once), but the covered cup never shows
    in the picture, so that account is refused and the board disagrees on that square."""
    board = play(Board(variant("gobblet-jr")), "1a1", "3a2")
    labels = list(board_labels(play(board.copy(), "1a1-c1")))
    c3 = board.geo.square("c3")
    labels[c3] = (0, 2)  # an empty square read as light size 2
    view = to_view(observe(labels), (1, 2, 3), 0.5)
    verdict = explain(board, view, max_moves=3)
    assert isinstance(verdict, Disagrees)
    assert c3 in verdict.squares
    # the same three moves with nothing covered are found when the picture shows them all
    shown = to_view(observe(board_labels(play(board.copy(), "1a1-c1", "1c2", "2c3"))), (1, 2, 3), 0.5)
    verdict = explain(board, shown, max_moves=3)
    assert isinstance(verdict, (Explained, Ambiguous))
    accounts = [format_moves(board, c.moves) for c in
                (verdict.candidates if isinstance(verdict, Ambiguous) else (verdict,))]
    assert ["1a1-c1", "1c2", "2c3"] in accounts


def test_a_change_where_no_hand_reached_is_not_committed():
    """A cup cannot come or go where no hand was seen: the hand was over b1 only, but d1 reads
    empty (a misread of its cup), so '4d1-b1' is not committed; it waits for a person, naming
    the square.  With a hand seen over d1 as well, the same picture is the move."""
    board = play(Board(variant("gobblet")), "4d1", "4a4")
    after = board_labels(play(board.copy(), "4d1-b1"))
    b1, d1 = board.geo.square("b1"), board.geo.square("d1")
    tracker = Tracker(SIZES_4)
    clock = Clock()
    reach(tracker, board, after, {b1}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert not [e for e in events if e.kind == "moves"]
    (pending,) = [e for e in events if e.kind == "pending"]
    assert pending.text == "4d1-b1 (no hand was seen at d1)"
    tracker = Tracker(SIZES_4)
    reach(tracker, board, after, {b1}, clock)
    reach(tracker, board, after, {d1}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert [e.text for e in events if e.kind == "moves"] == ["4d1-b1"]
    # a hand too pale to be seen over d1 still changed the picture there: that counts too
    tracker = Tracker(SIZES_4)
    reach(tracker, board, after, {b1}, clock)
    tracker.update(board, observe(after), clock.tick(), motion=True, touched=[d1])
    events = feed(tracker, board, observe(after), clock, 10)
    assert [e.text for e in events if e.kind == "moves"] == ["4d1-b1"]


def test_a_misread_no_hand_reached_does_not_stall_later_moves():
    """d1's dark 4 reads as a dark 3 (glare) in every frame.  No hand came near d1 and no
    single move can shrink a cup, so d1 is set aside as doubtful: White's move on b2, where
    the hand was, is committed instead of the whole board disagreeing."""
    board = play(Board(variant("gobblet")), "4a1", "4d1")
    b2, d1 = board.geo.square("b2"), board.geo.square("d1")
    after = list(board_labels(play(board.copy(), "4b2")))
    after[d1] = (1, 3)
    tracker = Tracker(SIZES_4)
    clock = Clock()
    reach(tracker, board, after, {b2}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert [e.text for e in events if e.kind == "moves"] == ["4b2"]
    assert [e.text for e in events if e.kind == "doubt"] == [
        "d1 looks like a dark size 3, the game says a dark size 4: is the game right?"]
    # a hand over d1 as well changes nothing: no lift and no cup put down leaves a 3 where a
    # 4 stood, so it is still a misread, not a physical move
    tracker = Tracker(SIZES_4)
    reach(tracker, board, after, {b2, d1}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert [e.kind for e in events if e.kind in ("moves", "pending", "disagrees", "doubt")] == ["doubt", "moves"]


def test_more_misreads_than_doubtful_squares_still_disagree():
    """Three unreached squares that no move explains are not a few misreads but a board
    changed behind the camera's back: reported, nothing committed."""
    board = play(Board(variant("gobblet")), "4a1", "4d1", "4a4", "4d4")
    after = list(board_labels(play(board.copy(), "4b2")))
    for name in ("a1", "d1", "a4"):
        sq = board.geo.square(name)
        colour, size = after[sq]
        after[sq] = (colour, size - 1)
    tracker = Tracker(SIZES_4)
    clock = Clock()
    reach(tracker, board, after, {board.geo.square("b2")}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert [e.kind for e in events if e.kind in ("moves", "pending", "disagrees")] == ["disagrees"]


def test_a_cup_read_as_what_lies_beneath_is_not_set_aside():
    """b1's top reads as the cup memory puts under it: a lift a missed hand may have made,
    so it is not a misread to set aside; the move from b1 waits for a person."""
    board = play(Board(variant("gobblet-jr")), "1b1", "3xb1")
    c3 = board.geo.square("c3")
    after = board_labels(play(board.copy(), "1c3", "3b1-c2"))
    tracker = Tracker((1, 2, 3))
    clock = Clock()
    reach(tracker, board, after, {c3, board.geo.square("c2")}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert not [e for e in events if e.kind == "moves"]
    assert [e.text for e in events if e.kind == "pending"] == ["1c3, 3b1-c2 (no hand was seen at b1)"]


def test_an_unreadable_square_no_account_changes_does_not_hold_the_move():
    """A hand over c3 and d3; c3 shows White's new 3 but d3 (empty by the game) reads with
    doubt.  No legal account of as many moves puts or takes a cup on d3 and fits the rest of
    the picture, so d3 does not hold the move: 3c3 is committed at once."""
    board = play(Board(variant("gobblet")), "4a1", "4b2")
    after = list(board_labels(play(board.copy(), "3c3")))
    c3, d3 = board.geo.square("c3"), board.geo.square("d3")
    tracker = Tracker(SIZES_4, TrackerConfig(commit_confidence=0.8))
    clock = Clock()
    reach(tracker, board, after, {c3, d3}, clock)
    readings = list(observe(after).squares)
    readings[d3] = SquareReading(EMPTY, confidence=0.45)
    events = feed(tracker, board, Observation(tuple(readings), True, (0, 1, 2, 3)), clock, 10)
    assert [e.text for e in events if e.kind == "moves"] == ["3c3"]
    assert not [e for e in events if e.kind in ("pending", "ambiguous")]


def test_an_unreadable_square_an_account_changes_is_asked_about():
    """White's 3 stood on d3; a hand over c3 and d3, c3 now shows a light 3 and d3 cannot be
    read.  The 3 may have come from d3 or from White's reserve: the players are asked, with
    both accounts as the candidates, and nothing is committed."""
    board = play(Board(variant("gobblet")), "4a1", "4b2", "4c1", "4d4", "3d3", "3a4")
    after = list(board_labels(play(board.copy(), "3d3-c3")))
    c3, d3 = board.geo.square("c3"), board.geo.square("d3")
    tracker = Tracker(SIZES_4, TrackerConfig(commit_confidence=0.8))
    clock = Clock()
    reach(tracker, board, after, {c3, d3}, clock)
    readings = list(observe(after).squares)
    readings[d3] = SquareReading(EMPTY, confidence=0.45)
    events = feed(tracker, board, Observation(tuple(readings), True, (0, 1, 2, 3)), clock, 10)
    assert not [e for e in events if e.kind == "moves"]
    (asked,) = [e for e in events if e.kind == "ambiguous"]
    assert sorted(format_moves(board, c.moves)[0] for c in asked.verdict.candidates) == ["3c3", "3d3-c3"]
    # a hand comes back over d3 and it then reads plainly empty: the move from d3 is the only
    # account
    reach(tracker, board, after, {d3}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert [e.text for e in events if e.kind == "moves"] == ["3d3-c3"]


def test_a_misread_appearing_where_no_hand_was_does_not_stop_the_next_move():
    """White's 4 on a1 was read right when its move was committed; then a1 reads empty (a
    light top against light wood) while no hand comes near it.  An empty a1 could be a lift,
    so it is not impossible, but no legal account explains the board with it: a1 is set
    aside as a doubt (the players are asked) and Black's move on b2 is committed."""
    board = play(Board(variant("gobblet")), "4a1")
    a1, b2 = board.geo.square("a1"), board.geo.square("b2")
    tracker = Tracker(SIZES_4)
    clock = Clock()
    feed(tracker, board, observe(board_labels(board)), clock, 8)  # the game as it stands
    after = list(board_labels(play(board.copy(), "4b2")))
    after[a1] = None
    reach(tracker, board, after, {b2}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert [e.text for e in events if e.kind == "moves"] == ["4b2"]
    assert [e.squares for e in events if e.kind == "doubt"] == [(a1,)]
    assert not [e for e in events if e.kind in ("disagrees", "illegal")]


def test_a_doubted_square_a_hand_reached_is_not_taken_for_the_game():
    """a1's light 4 reads empty and was set aside as a doubt.  Then White moves it to c3
    under a hand that reached a1 too: a1 still reads empty, as it did, but the 4 may have left
    it.  The picture fits both 'the 4 from a1 to c3' and 'a new 4 on c3': the players are
    asked with both, never the new 4 committed on trust in the doubt."""
    board = play(Board(variant("gobblet")), "4a1")
    a1, b2, c3 = (board.geo.square(n) for n in ("a1", "b2", "c3"))
    tracker = Tracker(SIZES_4)
    clock = Clock()
    feed(tracker, board, observe(board_labels(board)), clock, 8)
    after = list(board_labels(play(board.copy(), "4b2")))
    after[a1] = None
    reach(tracker, board, after, {b2}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    board.push(events[-1].verdict.moves[0] if events[-1].kind == "moves" else
               [e for e in events if e.kind == "moves"][0].verdict.moves[0])
    assert a1 in tracker.doubts
    moved = list(board_labels(play(board.copy(), "4a1-c3")))
    reach(tracker, board, moved, {a1, c3}, clock)
    events = feed(tracker, board, observe(moved), clock, 10)
    assert not [e for e in events if e.kind == "moves"]
    (asked,) = [e for e in events if e.kind == "ambiguous"]
    assert sorted(format_moves(board, c.moves)[0] for c in asked.verdict.candidates) == ["4a1-c3", "4c3"]


def test_misreads_that_happen_to_make_a_legal_move_are_not_committed():
    """White puts a 4 on a3, which cannot be read; at the same time White's 4 on b2 reads
    empty (0.97) and Black's 3 on d3 reads as a light 4 (0.87): together '4b2xd3', a legal
    move, and the hand reached all three squares.  The cup may be on a3 and those two squares
    misread, and the account does not lead that rival plainly: it waits, naming a3, and
    nothing is committed; once the board reads right the move made is."""
    board = play(Board(variant("gobblet")), "4b2", "4d4", "4c1", "3d3")
    a3, b2, d3 = (board.geo.square(n) for n in ("a3", "b2", "d3"))
    tracker = Tracker(SIZES_4)
    clock = Clock()
    feed(tracker, board, observe(board_labels(board)), clock, 8)
    truth = list(board_labels(play(board.copy(), "4a3")))
    reach(tracker, board, truth, {a3, b2, d3}, clock)
    readings = list(observe(truth).squares)
    readings[a3] = SquareReading(EMPTY, confidence=0.45)
    readings[b2] = SquareReading(EMPTY, confidence=0.97)
    readings[d3] = SquareReading(CUP, 0, 3, 0.87)
    events = feed(tracker, board, Observation(tuple(readings), True, (0, 1, 2, 3)), clock, 10)
    assert not [e for e in events if e.kind == "moves"]
    assert [e.text for e in events if e.kind == "pending"] == ["4b2xd3 (a3 cannot be read yet)"]
    # a hand comes back and the board reads right: the move made is committed
    reach(tracker, board, truth, {a3}, clock)
    events = feed(tracker, board, observe(truth), clock, 10)
    assert [e.text for e in events if e.kind == "moves"] == ["4a3"]


def test_cups_read_gone_after_a_hand_passed_are_asked_about_not_alerted():
    """A hand crossed a1, d1 and a4 to put a 3 on c3; afterwards the light 4s on a1 and a4
    read empty (pale tops on pale wood).  A cup never leaves the board, and neither 4 shows
    anywhere else: they are misreads to ask about, not a board that disagrees, and the move
    the rest shows is proposed, never committed on this picture alone."""
    board = play(Board(variant("gobblet")), "4a1", "4d1", "4a4", "4d4")
    a1, a4, c3, d1 = (board.geo.square(n) for n in ("a1", "a4", "c3", "d1"))
    after = list(board_labels(play(board.copy(), "3c3")))
    after[a1] = after[a4] = None
    tracker = Tracker(SIZES_4)
    clock = Clock()
    reach(tracker, board, after, {a1, a4, c3, d1}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    kinds = [e.kind for e in events if e.kind in ("moves", "pending", "disagrees", "illegal", "doubt")]
    assert kinds == ["doubt", "doubt", "pending"], [e.text for e in events]
    assert sorted(e.squares[0] for e in events if e.kind == "doubt") == sorted((a1, a4))
    assert [e.text for e in events if e.kind == "pending"] == ["3c3"]
    # the same picture later is no confirmation: nothing is committed without a person
    reach(tracker, board, after, {c3}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert not [e for e in events if e.kind in ("moves", "disagrees", "illegal")]


def test_a_cup_read_gone_that_shows_where_it_landed_is_no_misread():
    """a1's 4 reads gone but a light 4 shows on c3 where the game has none: that is the 4
    moving, not a misread to set aside.  Out of turn, or after Black entered a 3 on c3 that
    White gobbled at once (the picture cannot tell): the players are asked, with both named,
    and nothing is committed."""
    board = play(Board(variant("gobblet")), "4a1", "4d1", "3b2")
    a1, c3 = board.geo.square("a1"), board.geo.square("c3")
    after = list(board_labels(board))
    after[c3], after[a1] = after[a1], None
    tracker = Tracker(SIZES_4)
    clock = Clock()
    reach(tracker, board, after, {a1, c3}, clock)
    events = feed(tracker, board, observe(after), clock, 10)
    assert not [e for e in events if e.kind in ("doubt", "moves", "disagrees")]
    (asked,) = [e for e in events if e.kind in ("pending", "ambiguous", "illegal")]
    assert asked.kind == "pending" and format_moves(board, asked.verdict.moves) == ["3c3", "4a1xc3"]
    assert asked.text.endswith("or White's size 4 went from a1 to c3: it is Black's turn")


def test_a_move_from_a_doubted_square_that_still_looks_the_same_is_not_committed():
    """a2's light 3 reads empty, and a player said the game is right (that is how the cup looks
    there).  A hand then reaches a2 and c4, and c4 reads as a light 3 (a new light 4 misread).
    "3a2-c4" fits the picture, but a2 shows no change: the move is proposed, not committed
    (live held-out seed 13, game 1, made 4c4)."""
    from vision.tracking import Doubt

    board = play(Board(variant("gobblet")), "4a1", "4d1", "3a2", "4d2")
    a2, c4 = board.geo.square("a2"), board.geo.square("c4")
    seen = list(board_labels(board))
    seen[a2] = None
    tracker = Tracker(SIZES_4)
    tracker.restore_doubt(Doubt(a2, board.top(a2), board.top(a2), None, confirmed=True))
    clock = Clock()
    seen[c4] = (0, 3)
    reach(tracker, board, seen, {a2, c4}, clock)
    events = feed(tracker, board, observe(seen), clock, 10)
    assert not [e for e in events if e.kind == "moves"], [e.text for e in events]
    assert [e.text for e in events if e.kind == "pending"] == ["3a2-c4"]


def observe_faint(labels, faint, conf=0.95, faint_conf=0.3):
    """An observation reading ``labels``, the squares in ``faint`` right but with confidence
    ``faint_conf`` (below the tracker's ``min_confidence``)."""
    obs = observe(labels, conf)
    squares = tuple(SquareReading(r.state, r.colour, r.size, faint_conf if sq in faint else r.confidence)
                    for sq, r in enumerate(obs.squares))
    return Observation(squares, True, obs.markers_seen)


def test_a_move_on_a_board_too_faint_to_judge_is_asked_about_never_committed():
    """Dark tops all read right but faintly (a dark set under a dim light): more squares in
    doubt than a stable state may have.  The tracker used to wait silently for ever; now a move
    the faint readings fit, where a hand was, is put to the players, and never committed."""
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3c3", "3d4")
    sq = board.geo.square
    tracker = Tracker(SIZES_4)
    clock = Clock()
    dark = {sq("b2"), sq("d4")}
    feed(tracker, board, observe_faint(board_labels(board), dark), clock, 10)
    after = board_labels(play(board.copy(), "2d1"))
    faint = dark | {sq("d1"), sq("a1")}
    events = reach(tracker, board, board_labels(board), [sq("d1")], clock)
    events += feed(tracker, board, observe_faint(after, faint), clock, 10)
    asks = [e for e in events if e.kind in ("moves", "pending", "ambiguous")]
    assert [(e.kind, board.move_text(e.verdict.moves[0])) for e in asks] == [("pending", "2d1")]
    assert "only faintly" in asks[0].text
    # the same faint picture again confirms nothing
    events = reach(tracker, board, after, [sq("c1")], clock)
    events += feed(tracker, board, observe_faint(after, faint), clock, 10)
    assert not [e for e in events if e.kind == "moves"]


def test_a_faint_change_where_no_hand_was_is_not_asked_about():
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3c3", "3d4")
    sq = board.geo.square
    tracker = Tracker(SIZES_4)
    clock = Clock()
    after = board_labels(play(board.copy(), "2d1"))
    faint = {sq("b2"), sq("d4"), sq("d1"), sq("a1")}
    events = reach(tracker, board, board_labels(board), [sq("a3")], clock)
    events += feed(tracker, board, observe_faint(after, faint), clock, 10)
    assert not [e for e in events if e.kind in ("moves", "pending", "ambiguous")]



def observe_misread(labels, misread, conf=0.95):
    """An observation reading ``labels`` with confidence ``conf``, but each square of
    ``misread`` (square -> (label, confidence)) as given there."""
    obs = observe(labels, conf)
    squares = list(obs.squares)
    for sq, (label, c) in misread.items():
        squares[sq] = (SquareReading(EMPTY, confidence=c) if label is None
                       else SquareReading(CUP, label[0], label[1] - 1, c))
    return Observation(tuple(squares), True, obs.markers_seen)


def test_a_board_whose_dark_tops_read_faintly_light_is_asked_about_not_waited_on():
    """A dim light: Black's tops read faintly, and as light cups (seed 7's shaded Gobblet game
    stalled so).  Black enters a 3 on d4: the faint picture shows a light 3 there, out of turn,
    and b2's dark 4 as light, so nothing fits and the tracker used to wait in silence for every
    move after.  The faint cups' colours are now taken as in doubt: 3d4 is put to the players,
    never committed.  Then White's 4 goes from a1 to c1 and c1 reads plainly as a light 3 (one
    size off): that move is asked about too."""
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3c3")
    sq = board.geo.square
    a1, b2, c1, c3, d4 = (sq(n) for n in ("a1", "b2", "c1", "c3", "d4"))
    tracker = Tracker(SIZES_4)
    clock = Clock()
    before = board_labels(board)
    pale = {b2: ((0, 4), 0.3), c3: ((0, 3), 0.3)}
    feed(tracker, board, observe_misread(before, pale), clock, 10)
    after = board_labels(play(board.copy(), "3d4"))
    events = reach(tracker, board, before, [d4], clock)
    events += feed(tracker, board, observe_misread(after, {**pale, d4: ((0, 3), 0.3)}), clock, 10)
    asks = [e for e in events if e.kind in ("moves", "pending", "ambiguous")]
    assert [(e.kind, format_moves(board, e.verdict.moves)) for e in asks] == [("pending", ["3d4"])]
    assert not [e for e in events if e.kind in ("illegal", "disagrees")]
    play(board, "3d4")
    after = board_labels(play(board.copy(), "4a1-c1"))
    events = reach(tracker, board, board_labels(board), [a1, c1], clock)
    misread = {**pale, d4: ((0, 3), 0.3), c1: ((0, 3), 0.95)}
    events += feed(tracker, board, observe_misread(after, misread), clock, 10)
    asks = [e for e in events if e.kind in ("moves", "pending", "ambiguous")]
    assert [(e.kind, format_moves(board, e.verdict.moves)) for e in asks] == [("pending", ["4a1-c1"])]



def test_a_faint_board_is_asked_about_with_the_accounts_where_hands_were():
    """Black's 4a3 and White's 4b3 under one hand over a3 and b3; the board then reads faintly
    and b4 (White's 4, no hand near) flickers.  "4a3, 4b4-b3" fits too, but it changes b4,
    where no hand was: the tracker used to wait in silence for both; now it asks about the
    account the hands allow."""
    board = play(Board(variant("gobblet")), "4b4")
    sq = board.geo.square
    a1, a3, b3, b4 = (sq(n) for n in ("a1", "a3", "b3", "b4"))
    tracker = Tracker(SIZES_4)
    clock = Clock()
    feed(tracker, board, observe(board_labels(board)), clock, 10)
    after = board_labels(play(board.copy(), "4a3", "4b3"))
    events = reach(tracker, board, after, [a3, b3], clock)
    flicker = [observe_faint(after, {a1, a3, b3}), observe_faint(after, {a1, a3, b3, b4})]
    for k in range(12):
        obs = flicker[k % 2]
        if k % 2:
            readings = list(obs.squares)
            readings[b4] = SquareReading(EMPTY, confidence=0.3)
            obs = Observation(tuple(readings), True, obs.markers_seen)
        events += tracker.update(board, obs, clock.tick())
    asks = [e for e in events if e.kind in ("moves", "pending", "ambiguous")]
    assert asks and all(e.kind == "pending" for e in asks)
    assert format_moves(board, asks[-1].verdict.moves) == ["4a3", "4b3"] and "only faintly" in asks[-1].text

def test_a_reply_lifted_from_the_board_under_a_faint_picture_is_no_touch_alert_later():
    """White enters 2d1 and Black moves its 4 from b2 to a2 under one hand (b2 is seen lifted,
    Black's cup, while it is White's turn); the board then reads faintly and the pair is put to
    the players, who confirm it.  That lift belongs to the pair: it used to stay with the
    tracker and be judged with White's next move, a touch-opponent alert nobody caused."""
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3c3", "3d4")
    sq = board.geo.square
    tracker = Tracker(SIZES_4)
    clock = Clock()
    before = board_labels(board)
    feed(tracker, board, observe(before), clock, 10)
    lifting = list(before)
    lifting[sq("b2")] = None  # Black's 4 is in the hand
    lifting[sq("d1")] = (0, 2)
    hand = observe(lifting, occluded={sq("a2")}, hand=True)
    for _ in range(5):
        tracker.update(board, hand, clock.tick(), True, (sq("d1"), sq("a2"), sq("b2")))
    after = board_labels(play(board.copy(), "2d1", "4b2-a2"))
    events = feed(tracker, board, observe_faint(after, {sq("a1"), sq("c3"), sq("d4"), sq("a2")}), clock, 10)
    asks = [e for e in events if e.kind in ("moves", "pending", "ambiguous")]
    assert [(e.kind, format_moves(board, e.verdict.moves)) for e in asks] == [("pending", ["2d1", "4b2-a2"])]
    play(board, "2d1", "4b2-a2")  # the players confirm it
    events = feed(tracker, board, observe(after), clock, 10)
    after = board_labels(play(board.copy(), "3c3-b3"))
    events += reach(tracker, board, after, [sq("c3"), sq("b3")], clock)
    events += feed(tracker, board, observe(after), clock, 10)
    assert [e.text for e in events if e.kind == "moves"] == ["3c3-b3"]
    assert not [e for e in events if e.kind.startswith("touch")]

def test_a_reply_gobbling_the_cup_just_put_down_is_offered_not_guessed():
    """White enters a cup on c3 and Black gobbles it from the reserve before the board is seen
    still: the picture shows only Black's 3 on c3, out of turn.  The pairs that explain it
    (either White cup that fits under a 3, then 3xc3) are the candidates, beside White's 3
    misread dark; White's cup is never seen, so nothing is committed.  When White's cup would have won, there is no second move
    and so no such account."""
    board = play(Board(variant("gobblet-jr")), "2b2", "3a1")
    after = board_labels(play(board.copy(), "1c3", "3xc3"))
    verdict = explain(board, to_view(observe(after), (1, 2, 3), 0.5))
    assert isinstance(verdict, Ambiguous)
    assert sorted(format_moves(board, c.moves) for c in verdict.candidates) == [["1c3", "3xc3"], ["2c3", "3xc3"]]
    tracker = Tracker((1, 2, 3))
    clock = Clock()
    c3 = board.geo.square("c3")
    reach(tracker, board, board_labels(board), {c3}, clock, frames=3)
    reach(tracker, board, after, {c3}, clock, frames=3)
    events = feed(tracker, board, observe(after), clock, 10)
    assert not [e for e in events if e.kind in ("moves", "illegal", "disagrees", "doubt")]
    (asked,) = [e for e in events if e.kind in ("pending", "ambiguous")]
    # White's own 3 read dark leaves the same picture: that account is asked about too
    assert {tuple(format_moves(board, c.moves)) for c in asked.verdict.candidates} == {
        ("1c3", "3xc3"), ("2c3", "3xc3"), ("3c3",)}
    assert "3c3, if c3 is a light size 3 (it looks like a dark size 3)" in asked.text
    assert asked.text.endswith("or Black put a size 3 on c3: it is White's turn")
    # a win ends the game: with White on a1 and b2, a White cup on c3 wins, so Black's 3
    # there cannot be a reply
    board = play(Board(variant("gobblet-jr")), "1a1", "3c1", "2b2", "3a3")
    labels = list(board_labels(board))
    labels[c3] = (1, 3)
    assert isinstance(explain(board, to_view(observe(labels), (1, 2, 3), 0.5)), IllegalPhysical)


def test_the_one_reply_that_can_have_gobbled_is_asked_about():
    """4x4: White's only cup that fits under Black's 4 is a 3 (its stacks show 3s); the pair is
    the one account, but White's 3 was never seen, so the players are asked, not told."""
    board = play(Board(variant("gobblet")), "4a1", "4d1", "4a2", "4d2", "4b1", "4c2")
    truth = ["3b3", "4d2xb3"]
    after = board_labels(play(board.copy(), *truth))
    verdict = explain(board, to_view(observe(after), SIZES_4, 0.5))
    assert isinstance(verdict, Explained) and format_moves(board, verdict.moves) == truth
    tracker = Tracker(SIZES_4)
    clock = Clock()
    b3, d2 = board.geo.square("b3"), board.geo.square("d2")
    reach(tracker, board, board_labels(board), {b3}, clock, frames=3)
    reach(tracker, board, after, {d2, b3}, clock, frames=3)
    events = feed(tracker, board, observe(after), clock, 10)
    assert not [e for e in events if e.kind in ("moves", "illegal", "disagrees", "doubt")]
    (asked,) = [e for e in events if e.kind in ("pending", "ambiguous")]
    assert asked.kind == "pending" and format_moves(board, asked.verdict.moves) == truth
    assert "b3: the first cup was covered at once, not seen" in asked.text


def test_a_cup_of_a_size_not_in_the_game_beside_a_move_is_asked_about_not_alerted():
    """Storer's set has a fifth size its four-size games leave out: a shadow read as such a
    cup beside a legal move made the board 'disagree'.  The move is put to the players, naming
    the square, and never committed on that picture; a foreign cup that is the only change
    stays an alarm."""
    sizes = (1, 2, 3, 4, None)  # size class 4 plays no part in this game
    board = play(Board(variant("gobblet")), "4a1")
    tracker = Tracker(sizes)
    clock = Clock()
    before = board_labels(board)
    feed(tracker, board, observe(before), clock, 8)
    after = board_labels(play(board.copy(), "4b2"))
    phantom = 10  # c3, beside b2
    reach(tracker, board, after, {5, 6, 9, 10}, clock)

    def with_phantom(labels):
        obs = observe(labels)
        readings = list(obs.squares)
        readings[phantom] = SquareReading(CUP, 0, 4, 0.95)
        return Observation(tuple(readings), True, obs.markers_seen, hand=False)

    events = feed(tracker, board, with_phantom(after), clock, 12)
    kinds = [e.kind for e in events]
    assert "moves" not in kinds and "disagrees" not in kinds and "illegal" not in kinds
    asked = [e for e in events if e.kind == "pending"]
    assert asked and asked[-1].text.startswith("4b2") and "c3 looks like a cup of a size not in this game" in asked[-1].text

    lone = Tracker(sizes)
    feed(lone, board, observe(before), clock, 8)
    reach(lone, board, before, {10}, clock)
    events = feed(lone, board, with_phantom(before), clock, 12)
    assert "pending" not in [e.kind for e in events] and "moves" not in [e.kind for e in events]


def test_a_cup_gobbled_at_once_is_offered_beside_moves_on_squares_that_cannot_be_read():
    """White enters a 3 on b4 and Black's 4 from c2 gobbles it at once, under one hand; d1 and
    c3 (empty) read only with doubt.  A move onto an unread square then fits as well ("4d1,
    4c2-b4": White's cup unseen on d1), and the players used to be asked with only such
    accounts, never the move made: the pair in which Black covered White's new cup is as
    unseen as they are, so it is a candidate too, and nothing is committed."""
    board = play(Board(variant("gobblet")), "4a1", "4c2")
    truth = ["3b4", "4c2xb4"]
    after = board_labels(play(board.copy(), *truth))
    b4, c2, d1, c3 = (board.geo.square(n) for n in ("b4", "c2", "d1", "c3"))
    tracker = Tracker(SIZES_4)
    clock = Clock()
    feed(tracker, board, observe(board_labels(board)), clock, 8)
    reach(tracker, board, after, {b4, c2, d1, c3}, clock, frames=3)
    readings = list(observe(after).squares)
    for sq in (d1, c3):
        readings[sq] = SquareReading(EMPTY, confidence=0.4)
    events = feed(tracker, board, Observation(tuple(readings), True, (0, 1, 2, 3)), clock, 10)
    assert not [e for e in events if e.kind in ("moves", "illegal", "disagrees")]
    (asked,) = [e for e in events if e.kind in ("pending", "ambiguous")]
    accounts = asked.verdict.candidates if asked.kind == "ambiguous" else (asked.verdict,)
    offered = [format_moves(board, c.moves) for c in accounts]
    assert truth in offered
    assert ["4d1", "4c2-b4"] in offered  # the unseen cup may still be on d1


def test_tops_read_faintly_where_no_hand_was_do_not_hold_later_moves():
    """A dim lamp: Black's tops on b2 and d4 read faintly as light and a1 faintly as itself,
    more squares in doubt than a still board may have, for the rest of the game (held-out
    shaded Gobblet: every later move was asked, none committed).  No hand has been there since
    those tops were known, so their faint looks are how those tops read: White's 2 entered on
    d1, read plainly where the hand was, is committed alone.  A hand then passes over b2: a
    move from it, still showing its faint look, is not in the picture, so it is asked about."""
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3c3", "3d4")
    sq = board.geo.square
    a1, b2, d1, d4 = sq("a1"), sq("b2"), sq("d1"), sq("d4")
    dim = {a1: ((0, 4), 0.3), b2: ((0, 4), 0.3), d4: ((0, 3), 0.3)}
    tracker = Tracker(SIZES_4)
    clock = Clock()
    feed(tracker, board, observe_misread(board_labels(board), dim), clock, 10)
    after = board_labels(play(board.copy(), "2d1"))
    events = reach(tracker, board, board_labels(board), [d1], clock)
    events += feed(tracker, board, observe_misread(after, dim), clock, 10)
    assert [(e.kind, e.text) for e in events if e.kind in ("moves", "pending", "ambiguous")] == [("moves", "2d1")]
    play(board, "2d1")
    # Black's 4 goes from b2 to c2 and what it covered reads as b2's faint look did: the
    # picture shows no change on b2, so the move is only proposed
    after = board_labels(play(board.copy(), "4b2-c2"))
    events = reach(tracker, board, board_labels(board), [b2, sq("c2")], clock)
    events += feed(tracker, board, observe_misread(after, dim), clock, 10)
    assert not [e for e in events if e.kind == "moves"]


def test_a_cup_read_gone_and_one_read_a_size_off_offer_the_move_made():
    """White's 4 goes from b1 to c1 and c1 reads as a light 3 (a rounded rim under the lamp):
    b1's 4 reads gone and shows nowhere, and 'White entered a 3 on c1, b1 is misread' was the
    one account asked about (seed 7's shaded Gobblet game: the players had to dismiss it and
    tap the move in).  The move with c1's cup read a size off is a candidate too."""
    board = play(Board(variant("gobblet")), "4b1", "4a4")
    sq = board.geo.square
    b1, c1 = sq("b1"), sq("c1")
    tracker = Tracker(SIZES_4)
    clock = Clock()
    feed(tracker, board, observe(board_labels(board)), clock, 10)
    after = list(board_labels(play(board.copy(), "4b1-c1")))
    after[c1] = (0, 3)
    events = reach(tracker, board, board_labels(board), [b1, c1], clock)
    events += feed(tracker, board, observe(after), clock, 10)
    assert not [e for e in events if e.kind in ("moves", "illegal", "disagrees")]
    asked = [e for e in events if e.kind in ("pending", "ambiguous")]
    assert asked
    offered = [format_moves(board, c.moves) for c in
               (asked[-1].verdict.candidates if asked[-1].kind == "ambiguous" else (asked[-1].verdict,))]
    assert ["4b1-c1"] in offered and ["3c1"] in offered
    assert "c1 looks like a light size 3" in asked[-1].text


def test_a_cup_read_a_size_off_is_offered_beside_accounts_of_more_moves():
    """Black's 4s on b2 and c3 read faintly as light 4s, a hand over b2, b3 and c3, and
    Black's 3 entered on b3 reads as a 4 (seed 7's shaded Gobblet game).  Black has no 4 left
    to enter, so the picture fits only two moves: a 4 from b2 or c3 to b3 and a White 4 put
    where it left, reading as the faint look did; the players used to be asked with those
    alone.  One move with b3's cup read a size off fits too, and is offered first."""
    board = play(Board(variant("gobblet")), "4a1", "4b2", "3d1", "4c3", "2d2", "4d4", "4a4")
    sq = board.geo.square
    b2, b3, c3 = sq("b2"), sq("b3"), sq("c3")
    dim = {b2: ((0, 4), 0.3), c3: ((0, 4), 0.3)}
    tracker = Tracker(SIZES_4)
    clock = Clock()
    feed(tracker, board, observe_misread(board_labels(board), dim), clock, 10)
    after = board_labels(play(board.copy(), "3b3"))
    events = reach(tracker, board, board_labels(board), [b2, b3, c3], clock)
    events += feed(tracker, board, observe_misread(after, {**dim, b3: ((1, 4), 0.95)}), clock, 10)
    assert not [e for e in events if e.kind in ("moves", "illegal", "disagrees")]
    (asked,) = [e for e in events if e.kind in ("pending", "ambiguous")]
    offered = [format_moves(board, c.moves) for c in asked.verdict.candidates]
    assert offered[0] == ["3b3"] and len(offered) > 1 and all(len(c) == 2 for c in offered[1:])
    assert "b3 looks like a dark size 4" in asked.text
