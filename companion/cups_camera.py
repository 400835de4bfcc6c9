"""Cups from the camera: the set-up the referee reads the table with, the referee loop, and
the demo camera that plays Cups games.

The referee (``CupsReferee``) never counts its way to a move.  From the game's position the
engine lists the legal moves and their after-states; the reader (``vision.cups``) says per
cup, bowl and stock whether it changed since the last still table and about how many beans it
holds; ``explain_readings`` scores each after-state against that.  The move is committed only
when it is the one explanation within the doubt (``MARGIN``); otherwise the players are asked
which move it was (the same pending question and ``/api/camera/confirm`` as Gobblet's).  A
change that no legal move explains (``FIT_MIN``) is an alert naming the rule it breaks, and the
game waits until the table is put back.

Speed: each frame is first compared with the one before on a small grey copy (under a
millisecond); the containers are read only once the table has been still for ``settle``
frames after something moved, so a frame costs about a millisecond while nothing happens and
one read (70-150 ms) per move.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from calibration.cups import CupsSetup, CupsSetupError, load_cups_setup, setup_path
from engine.cups.game import CupsGame, CupsMove, Drop, Pass, Sow
from engine.cups.rules import CupsRules
from hardware.camera_model import plane_homography
from hardware.cups.layout import load_layout
from hardware.cups.state import TableState
from hardware.frames import EndOfStream, Frame, FrameSource, SourceUnavailable
from hardware.render.cups import ScriptFrame, arrange, iter_script_frames, random_cups_scene, render_cups
from vision.cups.calibration import from_pose
from vision.cups.explain import CandidateScore, Explanation, explain_readings
from vision.cups.reader import ContainerReading, CupsReader, TableReading

from .referee import CameraLoop, Health, Pending
from .session import GameSession, SessionError

log = logging.getLogger(__name__)

THUMB_WIDTH = 160  # the motion check's grey copy, pixels across
MOTION_LEVEL = 20.0  # grey levels a thumbnail pixel must change by to count as moving ...
MOTION_PIXELS = 6  # ... and this many of them (sensor noise moves a few by under 10)
TOUCH_COVER = 0.3  # the hand came over a container when this much of it differs from the still table
SETTLE_FRAMES = 2  # still frames after a movement before the table is read
# The doubt: the best after-state must lead the next plausible one by this much of
# ``explain_readings``' score to be committed alone.  A bean that lands unseen on an empty floor
# costs its move about 1.9 there, so a lead under 2 may be nothing but a hidden bean: the
# shorter drop then reads better than the drop played, and the players are asked.  A rival is
# plausible only if it explains the table well enough itself (``unexplained`` under ``FIT_MIN``)
# and, when the best explains the whole table, the hand came over every container it changes
# that the best leaves alone (``_plausible``): a drop into a cup the hand never reached is no
# rival then, nor "nothing happened" when a container surely changed.
MARGIN = 2.0
# What the best after-state leaves unexplained must stay under this for it to be taken (see
# ``unexplained``); above it no legal move explains what the camera sees: an alert, and the game
# waits.  One container read changed for sure where the move changes nothing is 3.
FIT_MIN = 2.5
MISSED_EMPTIED = 1.5  # a container emptied read unchanged (one bean taken from a dark cup)
MISSED_EMPTY = 1.0  # a bean on an empty floor not seen: it may lie in the rim's shadow
UNSEEN_MORE = MISSED_EMPTY  # a rival may need this much more unexplained than the best (one bean unseen)
CAME_COVER = 0.1  # the hand came over a container when this much of it differed at once
# a container the hand never came over that reads changed by less than this share of a bean's
# area changed with the light, not by a bean (held-out seed 9700 cups-4 lamplight, move 1: the
# empty South bowl 0.27 and North's heaped stock 0.29, nobody near them, made d1 an illegal move)
STRAY_CHANGE = 0.5
ASK_MAX = 3  # at most this many moves offered when the table reads unchanged after a hand
ASK_BAND = 1.5  # rivals within this many times ``MARGIN`` of the best fill a question up to ``ASK_MAX`` moves
# A bean that lands on a cup's floor the camera sees stirs its picture even where it is too
# faint for the change test: a cup whose floor is seen over SEEN_MIN of it and whose largest
# stirred patch is under STIR_QUIET of a bean got no bean (``_quiet``)
SEEN_MIN = 0.8
STIR_QUIET = 0.03
# A container read changed by this many beans' area where the hand came over it surely changed:
# "nothing happened" is then no rival of a move that explains it, however unsure its count (a
# cup of three touching beans, a bowl's or a stock's heap): on seeds 9500-9502, 4 of 23
# questions were a drop or a sow asked alone for "nothing" trailing it, each over a change of
# 0.99-1.32 beans' area
SURE_CHANGE = 0.9
SURE = 0.6  # a count reading this confident (a few beans on a floor, not a heap) is evidence
# What the journal and the page say when the players tell the camera the table is the game's
RESYNC_TEXT = "the players say the table is set as the game shows it: the camera watches on from there"


class CupsSetupMissing(ValueError):
    """The camera has no usable Cups set-up (the table is not calibrated, or its saved set-up
    cannot be read: the message names the file and the field)."""


def cups_setup(demo: "CupsDemoCamera | None" = None, data_dir: Path | None = None) -> CupsSetup:
    """The Cups set-up of the camera: the demo camera's comes from its render pose; a real
    camera's is the one the wizard's Cups steps saved in ``data_dir`` (``calibration.cups``).
    No set-up, or one that cannot be read, raises ``CupsSetupMissing`` saying what to do."""
    if demo is not None:
        return demo.setup()
    if data_dir is None:
        raise CupsSetupMissing("calibrate the Cups table first: the camera has no Cups set-up yet")
    try:
        return load_cups_setup(data_dir)
    except CupsSetupError as e:
        raise CupsSetupMissing(f"calibrate the Cups table first (the wizard's Cups steps): {e}") from None


def table_state(game: CupsGame) -> TableState:
    """The game's position as the table shows it: each row from its owner's left."""
    return TableState(tuple(game.cups[0]), tuple(game.cups[1]), (game.bowls[0], game.bowls[1]),
                      (game.stocks[0], game.stocks[1]))


def after_state(game: CupsGame, move: CupsMove) -> TableState:
    """The table after ``move`` (legal in ``game``)."""
    after = game.copy()
    after.push(move)
    return table_state(after)


def container_names(x: int) -> list[str]:
    """Names of the containers in ``TableState.as_counts`` order."""
    return ([f"South's cup {i + 1}" for i in range(x)] + [f"North's cup {i + 1}" for i in range(x)]
            + ["South's bowl", "North's bowl", "South's stock", "North's stock"])


def unexplained(before: TableState, after: TableState, reading: TableReading) -> float:
    """How much of the reading the after-state cannot explain, counting only what the camera
    sees for sure: a container read changed that the move leaves (3, scaled by the reading's
    confidence), or read unchanged where the move empties it (``MISSED_EMPTIED``), a bean the
    move puts on an empty floor not seen (``MISSED_EMPTY``), a cup's floor seen bare where the
    move leaves two beans or more (3), and more beans seen for sure in a container than the move leaves there (1.5
    per bean, at most 4, scaled by the confidence).  What the camera does not see is no
    evidence against a move: a bean can land out of sight, beans lie under others (counts read
    low; a stock of 60 beans may read as a few, or none where the saucer is at the picture's
    edge), and a bean taken from a heap shows little."""
    total = 0.0
    cups = 2 * before.cups_per_row  # the cups come first; bowls and stocks may hold heaps
    for i, (b, a, r) in enumerate(zip(before.as_counts(), after.as_counts(), reading.containers)):
        sure = 0.5 + 0.5 * r.confidence
        if r.changed and a == b:
            total += 3.0 * sure
        elif not r.changed and a == 0 < b:
            total += MISSED_EMPTIED * sure  # a container emptied shows its floor: seldom missed
        elif not r.changed and b == 0 < a:
            total += MISSED_EMPTY * sure  # a bean on an empty floor mostly shows
        if r.confidence < SURE or (a == b and not r.changed):
            # a count at odds with a container neither the move nor the picture changed was at
            # odds with the table already: a misread (two dark beans under a low lamp read as a
            # bare floor: seed 5000 cups-6 lamplight), no evidence against this move
            continue
        if a < r.count_low:
            total += 1.5 * r.confidence * min(4.0, r.count_low - a)
        elif i < cups and r.count_estimate == 0 and a >= 2:
            # a cup's floor seen bare where the move leaves beans on it, also where it held beans
            # already that the reader missed: forgiving that turned a false alarm into a wrong
            # commit on seed 9001 (cups-6 lamplight, move 8, d6x committed as d5)
            total += 3.0 * sure
    return total


def illegal_rule(game: CupsGame, reading: TableReading) -> tuple[str, list[int]]:
    """The rule that the change the camera reads breaks, in words, and the containers that
    changed (``as_counts`` order).  ``reading`` is against the position of ``game``."""
    x = game.rules.cups
    p, q = game.turn, 1 - game.turn
    me, them = game.player_name(p), game.player_name(q)
    changed = [i for i, r in enumerate(reading.containers) if r.changed]
    names = container_names(x)
    mine = range(p * x, p * x + x)
    theirs = range(q * x, q * x + x)
    bowl_mine, stock_mine, stock_theirs = 2 * x + p, 2 * x + 2 + p, 2 * x + 2 + q
    what = ", ".join(names[i] for i in changed) or "nothing the camera can name"
    if stock_theirs in changed or 2 * x + q in changed:
        return f"it is {me}'s turn, but {them}'s beans moved ({what})", changed
    my_cups = [i - p * x for i in changed if i in mine]  # 0-based, from the mover's left
    their_cups = [i - q * x for i in changed if i in theirs]
    if stock_mine in changed:
        k = max(my_cups) + 1 if my_cups else 0
        capture = [x - k] if k and game.cups[p][k - 1] == 0 else []  # the cup a drop of k may empty
        if [c for c in their_cups if c not in capture]:
            return (f"a drop puts {me}'s beans into {me}'s own cups only, never into {them}'s "
                    f"(changed: {what})"), changed
        if my_cups != list(range(k)):
            return (f"a drop puts one bean into each of {me}'s cups from the leftmost, with no gap "
                    f"(changed: {what})"), changed
        return (f"a drop of {k} puts one bean into each of {me}'s cups 1 to {k}"
                f"{', and takes the opposite cup only when the last lands in an empty cup' if k else ''} "
                f"(changed: {what})"), changed
    if their_cups and not my_cups and bowl_mine not in changed and not any(
            reading.containers[q * x + c].count_estimate < game.cups[q][c] for c in their_cups):
        # beans came into the opponent's cups only, none went: from the mover's stock, whose
        # heap shows a few beans less as no change (seed 2002 cups-4, a drop of 4 into the
        # opponent's cups was "no legal move changes the table this way")
        return (f"a drop puts {me}'s beans into {me}'s own cups only, never into {them}'s "
                f"(changed: {what})"), changed
    emptied = [c for c in my_cups if reading.containers[p * x + c].count_estimate == 0 and game.cups[p][c] > 0]
    if emptied:
        cup = emptied[0] + 1
        reason = game.illegal_reason(Sow(cup))
        if reason is not None:
            return reason, changed
        return (f"sowing cup {cup} puts one bean into each later cup and the last into the bowl "
                f"(changed: {what})"), changed
    if bowl_mine in changed and not my_cups:
        return f"beans went into {me}'s bowl without a sow or a capture (changed: {what})", changed
    return f"no legal move of {me} changes the table this way (changed: {what})", changed


@dataclass
class Judgement:
    """What one still table was taken for: a move committed, a question, an alert or nothing."""

    kind: str  # "move", "ambiguous", "illegal", "nothing", "baseline", "restored", "hand"
    text: str = ""
    explanation: Explanation | None = None


@dataclass(frozen=True)
class Verdict:
    """``CupsReferee.decide``'s answer: ``kind`` "move" (``moves[0]``, leading its rivals by
    ``lead``), "ask" (the candidates in ``moves``), "illegal" or "nothing"."""

    kind: str
    moves: tuple[CupsMove, ...]
    explanation: Explanation
    lead: float = 0.0


class CupsReferee(CameraLoop):
    """Turns frames of a Cups table into moves and alerts for ``session`` (a Cups game).

    It trusts that the table shows the game's position when it starts (a new game, or one
    resumed after a restart): the first still frame is the reference changes are read from.
    A move tapped in or taken back on the page makes it take the next still table as the
    reference again."""

    takes_resync = True

    def __init__(self, session: GameSession, setup: CupsSetup, settle: int = SETTLE_FRAMES,
                 margin: float = MARGIN, fit_min: float = FIT_MIN) -> None:
        if not isinstance(session.board, CupsGame):
            raise ValueError(f"{session.board.rules.name} is not a game of Cups")
        if session.board.rules.cups != setup.layout.cups_per_row:
            raise ValueError(f"the table has {setup.layout.cups_per_row} cups a row; this game needs "
                             f"{session.board.rules.cups}")
        self.session = session
        self.setup = setup
        self.settle = settle
        self.margin = margin
        self.fit_min = fit_min
        self.reader = CupsReader(setup.layout, setup.calibration, setup.empty)
        self.health = Health(board_found=True)
        self.pending: Pending | None = None
        self.last_observation = None  # the Gobblet overlay's; nothing to draw for Cups yet
        self.last_judgement: Judgement | None = None
        self.last_reading: TableReading | None = None  # the last full read (for the bench's why)
        self.judged_frames: list[int] = []  # frame indexes read in full (for the bench)
        self._prev: np.ndarray | None = None
        self._still = 0
        self._dirty = True  # the first still table becomes the reference
        self._baseline = True
        self._waiting: list[int] | None = None  # containers of an illegal change to put right
        self._wait_text = ""  # ... and the alert that said so
        self._ply = -1
        self._frame: np.ndarray | None = None  # the last frame read in full
        self._fps_window: list[float] = []
        self._masks: list[np.ndarray] | None = None  # per container, its thumbnail pixels
        self._stable_thumb: np.ndarray | None = None
        self.touched: set[int] = set()  # containers the hand came over since the last still table
        self.cover: dict[int, float] = {}  # the most of each container seen moving at once
        self.last_cover: dict[int, float] = {}  # ... up to the last table read
        self._play_forced()

    # ------------------------------------------------------------------ frames
    def _container_masks(self, shape: tuple[int, int], width: int) -> list[np.ndarray]:
        """Per container, the flat indexes of the thumbnail pixels it covers as the camera sees
        it (its foot and its rim, and a little around: a hand over it shows there)."""
        cal = self.setup.calibration
        pose = cal.pose()
        scale = shape[1] / width
        masks = []
        for c in self.setup.layout.containers:
            pts = []
            for z in (0.0, c.height_mm):
                H = plane_homography(cal.intrinsics, pose, z)
                a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
                ring = np.column_stack([c.x_mm + (c.radius_mm + 5) * np.cos(a), c.y_mm + (c.radius_mm + 5) * np.sin(a),
                                        np.ones(16)])
                img = ring @ H.T
                pts.append(img[:, :2] / img[:, 2:3] * scale)
            hull = cv2.convexHull(np.vstack(pts).astype(np.float32)).astype(np.int32)
            mask = np.zeros(shape, np.uint8)
            cv2.fillConvexPoly(mask, hull, 1)
            masks.append(np.flatnonzero(cv2.dilate(mask, np.ones((3, 3), np.uint8))))
        return masks

    def _touch(self, moved: np.ndarray, width: int) -> None:
        if self._masks is None:
            self._masks = self._container_masks(moved.shape, width)
        flat = moved.ravel()
        for i, idx in enumerate(self._masks):
            cover = float(np.count_nonzero(flat[idx])) / max(len(idx), 1)
            self.cover[i] = max(self.cover.get(i, 0.0), cover)
            if cover >= TOUCH_COVER:
                self.touched.add(i)
    def _thumb(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        small = cv2.resize(image, (THUMB_WIDTH, max(1, h * THUMB_WIDTH // w)), interpolation=cv2.INTER_AREA)
        return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.int16)

    def _moving(self, thumb: np.ndarray, width: int) -> bool:
        prev, self._prev = self._prev, thumb
        if prev is None or prev.shape != thumb.shape:
            return True
        d = thumb - prev
        d -= int(np.median(d))  # the auto-exposure moves the whole picture a little
        moved = np.abs(d) > MOTION_LEVEL
        if int(np.count_nonzero(moved)) < MOTION_PIXELS:
            return False
        if self._stable_thumb is not None and self._stable_thumb.shape == thumb.shape:
            # where the picture differs from the last still table: the hand, where it is now
            e = thumb - self._stable_thumb
            e -= int(np.median(e))
            self._touch(np.abs(e) > MOTION_LEVEL, width)
        return True

    def process(self, frame: Frame) -> Judgement | None:
        """Look at one frame; when the table has settled after a movement, read it and act.
        Returns what the table was taken for, or None when it was not read."""
        start = time.perf_counter()
        judgement = None
        if self._moving(self._thumb(frame.image), frame.image.shape[1]):
            self._still = 0
            self._dirty = True
        else:
            self._still += 1
        with self.session.lock:
            if self.session.board.ply != self._ply and not self._baseline:
                self._rebase()  # moves tapped in or taken back: the table is read afresh
            if self._dirty and self._still >= self.settle and not self.session.over:
                judgement = self._judge(frame)
        self._count_frame(frame, time.perf_counter() - start)
        return judgement

    def _rebase(self) -> None:
        self._baseline = True
        self._dirty = True
        self._waiting = None
        self.pending = None
        self._play_forced()

    def _judge(self, frame: Frame) -> Judgement:
        self.judged_frames.append(frame.index)
        self.last_cover = dict(self.cover)
        image = frame.image
        if self.reader.hand(image):  # a hand held still over the table: not a table to judge
            self.health.hand = True
            self._still = 0
            return Judgement("hand")
        self.health.hand = False
        self._frame = image
        self._dirty = False
        self.health.last_stable = frame.timestamp
        if self._baseline:
            self._set_stable(image)
            self._baseline = False
            self._ply = self.session.board.ply
            return self._note(Judgement("baseline", "the table is taken as the game shows it"))
        reading = self._stray_changes_dropped(self.reader.read(image))
        self.last_reading = reading
        game = self.session.board
        if self._waiting is not None:
            reading = self._against_counts(reading, game)
        verdict = self.decide(game, reading)
        ex = verdict.explanation
        if verdict.kind == "ask":
            return self._ask(game, list(verdict.moves), ex)
        if verdict.kind == "illegal":
            return self._illegal(game, reading, ex)
        if verdict.kind == "nothing":  # the table is as it was: a hand passed, or the table was put right
            restored = self._waiting is not None or self.pending is not None
            self._waiting = None
            self.pending = None
            self._set_stable(image)
            if restored:
                self.session.alert("restored", "the table matches the game again", {})
                return self._note(Judgement("restored", explanation=ex))
            return self._note(Judgement("nothing", explanation=ex))
        move = verdict.moves[0]
        text = game.move_text(move)
        self.pending = None
        self._waiting = None
        self.session.play(move, source="camera", notes={"margin": f"{min(verdict.lead, 99.0):.2f}"})
        self._set_stable(image)
        self._play_forced()
        return self._note(Judgement("move", text, ex))

    def decide(self, game: CupsGame, reading: TableReading) -> "Verdict":
        """What a still table read as ``reading`` (against the last still table, the position
        of ``game``) is taken for, with no side effect: a move committed, a question with its
        candidates, an illegal change, or nothing.  Uses the hand's cover since that table."""
        before = table_state(game)
        moves = game.legal_moves()
        states = [before] + [after_state(game, m) for m in moves]
        ex = explain_readings(before, states, reading)
        best = ex.scores[0]
        if unexplained(before, best.state, reading) >= self.fit_min:
            # the best may disagree with a sure count only when it explains the stock too: a
            # stock's loss taken as unseen and a cup emptied taken as a bean added together
            # would be a bad sow asked as a drop
            same = [s for s in ex.scores if s.index != 0 and self._same_pattern(before, s.state, reading)
                    and ((s is best and self._same_pattern(before, s.state, reading, stocks_seen=True))
                         or not self._counts_against(before, s.state, reading))]
            if same:
                # every container read changed is one a legal move changes, and it misses only
                # beans it adds: a count misread (dark beans in a rim's shadow read as a bare
                # floor: seed 3004 cups-6 lamplight, d4x) or a bean unseen is likelier than an
                # illegal move that looks legal.  That move need not be the best-scored: three
                # beans of d2x unseen (one under a rim) scored below d1, which does not explain
                # the capture read (seed 4000 cups-6 daylight, move 10); but one below the best
                # must agree with every sure count (beans put into the opponent's cup 1 are no
                # capture of it)
                return Verdict("ask", (moves[same[0].index - 1],), ex)
            # a legal move below the best-scored may leave under ``FIT_MIN`` unexplained: the
            # camera sees nothing sure against it, so the change is no proof of an illegal move
            # (seed 9201 cups-6 lamplight, move 4: d2x 2.38, its capture and a bean unseen,
            # scored below d1, 2.85, which leaves the bowl's bead unexplained)
            fits = [s for s in ex.scores if s.index != 0 and unexplained(before, s.state, reading) < self.fit_min]
            if fits and self._waiting is None:
                return Verdict("ask", tuple(moves[s.index - 1] for s in fits[:ASK_MAX]), ex)
            return Verdict("illegal", (), ex)
        if best.index == 0 and self._waiting is None and self.pending is None:
            unseen = self._unseen_moves(before, ex, reading)
            if unseen:  # the hand came over the containers: a move may have been made unseen
                return Verdict("ask", tuple(moves[s.index - 1] for s in unseen), ex)
        if best.index == 0:  # the table is as it was: a hand passed, or the table was put right
            return Verdict("nothing", (), ex)
        # when the best itself needs a bean unseen in a cup the hand never came over, the hand's
        # reach rules no rival out either (seed 5007 cups-4 lamplight, move 5: d3's beans all
        # unseen, d1 best, d3 left out of the question for cup 2 the hand was not seen over)
        unreached = self._unreached(before, best.state, reading)
        # a rival is plausible when it explains the table well enough itself, or no worse than
        # the best but for one more bean unseen: when the best already needs beans unseen, a
        # rival that needs one more is no less likely (seed 8004 cups-4 daylight, move 1: d4
        # played, the beans in cups 1, 2 and 4 unseen, d3 needing two of them unseen committed
        # alone because d4, needing three, was over ``FIT_MIN``)
        left = unexplained(before, best.state, reading)
        fit = max(self.fit_min, left + UNSEEN_MORE)
        moved = self._surely_changed(reading)
        rivals = [s for s in ex.scores[1:] if (unreached or left > 0 or self._plausible(before, best.state, s.state))
                  and unexplained(before, s.state, reading) < fit and not self._quiet(before, best.state, s.state, reading)
                  and not (moved and s.index == 0)]
        lead = best.score - rivals[0].score if rivals else float("inf")
        # a rival that explains the table as well as the best (beans landing unseen on beans
        # cost it nothing there) trails it only on the counts, which read a cup of two as one:
        # it is asked about within the question's band (held-out seed 9203 cups-6 daylight,
        # move 8: d5 played, d4 committed 2.25 ahead, both explaining every change)
        even = [s for s in rivals if s.index != 0 and unexplained(before, s.state, reading) <= left
                and best.score - s.score < ASK_BAND * self.margin]
        # so does a rival that needs one bean more unseen than the best, in a cup not seen quiet:
        # an unseen bean costs it about 1.9, and the counts' tail (a heap's range a bean off)
        # can take it past ``MARGIN`` (held-out seed 9302 cups-4 lamplight, move 1: d3 played,
        # cups 1 and 3 unseen, cup 3 stirred 1.57 of a bean; d2 committed 2.06 ahead)
        even += [s for s in rivals if s.index != 0 and s not in even and best.score - s.score < ASK_BAND * self.margin
                 and self._one_bean_more(before, best.state, s.state, reading)]
        close = [best] + [s for s in rivals if s.index != 0 and best.score - s.score < self.margin]
        close += [s for s in even if s not in close]
        if lead < self.margin or even:
            # a question may offer a little more than the doubt: rivals just past ``MARGIN`` fill
            # it up to ``ASK_MAX`` (seed 8004 cups-4 lamplight, move 1: d4 asked as d3 or d1,
            # d4 trailing by 2.08)
            wider = [s for s in rivals if s.index != 0 and self.margin <= best.score - s.score < ASK_BAND * self.margin
                     and s not in close]
            close += wider[:max(0, ASK_MAX - len(close))]
            return Verdict("ask", tuple(moves[s.index - 1] for s in close[:ASK_MAX if unreached else None]), ex)
        if unreached:
            # the best needs a bean unseen in a cup the hand never came near: not alone
            return Verdict("ask", tuple(moves[s.index - 1] for s in ([best] + rivals)[:ASK_MAX] if s.index != 0), ex)
        return Verdict("move", (moves[best.index - 1],), ex, lead)

    def _set_stable(self, image: np.ndarray) -> None:
        self.reader.set_stable(image)
        self._stable_thumb = self._thumb(image)
        self.touched = set()
        self.cover = {}

    def _unseen_moves(self, before: TableState, ex: Explanation, reading: TableReading) -> list[CandidateScore]:
        """When the table reads as unchanged after the hand came over containers: the moves
        the camera may have missed, to ask about, best first (empty when the hand came over
        none).  The hand came over a container when it covered a little of it (``CAME_COVER``)
        or the container reads changed.  The moves asked about change one of those; the best
        of them that nothing seen contradicts (``unexplained`` under ``FIT_MIN``), with those
        within ``MARGIN`` of it (at most ``ASK_MAX``); when every one is contradicted, the
        best-scored all the same: a hand seldom reaches over the cups and does nothing, and a
        question loses nothing where a move let go would be lost."""
        came = self._came_over()
        came |= {i for i, r in enumerate(reading.containers) if r.changed}
        if not came:
            return []
        b = before.as_counts()
        near = []
        for s in ex.scores:
            if s.index == 0:
                continue
            a = s.state.as_counts()
            if any(a[i] != b[i] for i in came):
                near.append(s)
        fits = [s for s in near if unexplained(before, s.state, reading) < self.fit_min]
        if not fits:
            return near[:1]
        return [s for s in fits if fits[0].score - s.score < self.margin][:ASK_MAX]

    def _unreached(self, before: TableState, best: TableState, reading: TableReading) -> bool:
        """Whether ``best`` puts a bean the camera did not see into a cup the hand did not come
        over (never ``TOUCH_COVER`` of it differed at once): a drop one cup longer than the
        one played, chosen because the beans of the move played were not seen either.  A cup
        with a later cup of its row (a drop and a sow go from the player's left) that ``best``
        changes read changed is no such end: the move's length is seen beyond it (issue 23's
        third look: d6x asked about for an unseen bean in cup 2, cups 3-6 read changed).  Nor
        is any cup of a row whose drop's capture is seen (a cup of the other row that ``best``
        empties read changed): a drop takes the opposite cup only when its last bean lands in
        an empty cup, so the capture shows where the drop ended (seed 8003 cups-6 daylight,
        move 9: d6x asked for its last bean unseen in cup 6, North's cup 1 read emptied)."""
        x = before.cups_per_row
        b, a = before.as_counts(), best.as_counts()
        changed = [r.changed for r in reading.containers]
        for i in range(2 * x):
            if a[i] > b[i] and not changed[i] and self.cover.get(i, 0.0) < TOUCH_COVER:
                row_start, row_end = i // x * x, (i // x + 1) * x
                other = range(x, 2 * x) if row_start == 0 else range(0, x)
                if any(a[j] == 0 < b[j] and changed[j] for j in other):
                    continue
                if not any(a[j] != b[j] and changed[j] for j in range(i + 1, row_end)):
                    return True
        return False

    @staticmethod
    def _same_pattern(before: TableState, after: TableState, reading: TableReading, stocks_seen: bool = False) -> bool:
        """Whether the move to ``after`` explains every container read changed, and what it
        changes but reads unchanged is only beans added (a bean that lands unseen, under a rim
        or against others: seed 5040 cups-4 lamplight d4x, cup 3's second bean), or beans
        taken from a stock (a heap of 30 shows no bean less: seed 5007 cups-4 lamplight, d2),
        unless ``stocks_seen``, or a cup emptied whose beans the camera never saw (``_never_seen``)."""
        b, a = before.as_counts(), after.as_counts()
        # a bean taken from a heap shows little
        stocks = range(2 * before.cups_per_row + 2, len(b)) if not stocks_seen else range(0)
        cups = 2 * before.cups_per_row
        return all(a[i] != b[i] if r.changed
                   else (a[i] >= b[i] or i in stocks or (i < cups and a[i] == 0 and CupsReferee._never_seen(r)))
                   for i, r in enumerate(reading.containers))

    @staticmethod
    def _never_seen(r: ContainerReading) -> bool:
        """Whether a cup read unchanged shows a bare floor for sure (``SURE``): beans it held
        were not seen on the last still table either, so its emptying cannot show.  White
        beads on a white floor the light burns out (seed 9201 cups-6, move 2: North's d4x took
        South's cup 3's bead, which read bare before and after), or a bead in the part of the
        floor under the near rim (seed 9203 cups-6 daylight, move 3: d6x captured North's cup 1,
        its floor seen 0.45, its bead never seen)."""
        return not r.changed and r.count_estimate == 0 and r.confidence >= SURE

    @staticmethod
    def _counts_against(before: TableState, after: TableState, reading: TableReading) -> bool:
        """Whether a sure count (``SURE``) says ``after`` is not the table: more beans seen in a
        container than it leaves, or a cup's floor seen bare where it leaves two or more."""
        cups = 2 * before.cups_per_row
        for i, (b, a, r) in enumerate(zip(before.as_counts(), after.as_counts(), reading.containers)):
            if a == b and not r.changed:
                continue  # as in ``unexplained``: a misread of a container nothing changed
            if r.confidence >= SURE and (a < r.count_low or (i < cups and r.count_estimate == 0 and a >= 2)):
                return True
        return False

    @staticmethod
    def _quiet(before: TableState, best: TableState, rival: TableState, reading: TableReading) -> bool:
        """Whether ``rival`` needs a bean in a cup that surely got none, where ``best`` leaves
        it alone: the drop one cup longer than the one seen, whose last bean would land in a
        cup whose floor the camera sees almost whole (``SEEN_MIN``) and whose picture nothing
        stirred (``STIR_QUIET``; ``CupsReader.stir``), while ``best`` explains every container
        it changes (a game whose beans all show).  On seeds 9000-9004, of the beans that landed
        in a cup and were read unchanged, none in a cup seen over 0.8 stirred under 0.27 of a
        bean; every one that stirred nothing lay in a cup seen under 0.63 (the rest of its
        floor under the near rim).  Held out, seed 9201 cups-6 daylight move 3, a bean the
        colour of its floor stirred nothing in a cup seen 0.97: the rule can be wrong there."""
        b, x, y = before.as_counts(), best.as_counts(), rival.as_counts()
        extra = [i for i in range(len(b)) if y[i] != b[i] and x[i] == b[i]]
        if not extra or unexplained(before, best, reading) > 0:
            return False
        return all(y[i] > b[i] and CupsReferee._seen_quiet(reading.containers[i]) for i in extra)

    @staticmethod
    def _one_bean_more(before: TableState, best: TableState, rival: TableState, reading: TableReading) -> bool:
        """Whether ``rival`` is ``best`` but for one bean more in one cup that reads unchanged
        and is not seen quiet (``_seen_quiet``: the bean may lie under its near rim, or its
        picture stirred), and leaves no more unexplained than ``best`` but for that bean
        (``UNSEEN_MORE``).  The drop one cup longer than the one seen, when the beans of the
        drop played were not all seen either: what else sets the two apart is the counts."""
        b, x, y = before.as_counts(), best.as_counts(), rival.as_counts()
        extra = [i for i in range(len(b)) if y[i] != b[i] and x[i] == b[i]]
        if len(extra) != 1 or extra[0] >= 2 * before.cups_per_row:
            return False
        i = extra[0]
        r = reading.containers[i]
        if y[i] != b[i] + 1 or r.changed or CupsReferee._seen_quiet(r):
            return False
        return unexplained(before, rival, reading) <= unexplained(before, best, reading) + UNSEEN_MORE

    @staticmethod
    def _seen_quiet(r: ContainerReading) -> bool:
        """Whether a cup read unchanged surely got no bean: its floor seen over ``SEEN_MIN``
        of it and nothing stirred there (under ``STIR_QUIET`` of a bean)."""
        return (not r.changed and r.stir is not None and r.stir < STIR_QUIET
                and r.seen is not None and r.seen >= SEEN_MIN)

    def _surely_changed(self, reading: TableReading) -> bool:
        """Whether a container the hand came over (``_came_over``) reads changed by
        ``SURE_CHANGE`` of a bean's area or more: the table is not as it was."""
        came = self._came_over()
        return any(i in came and r.changed and (r.change or 0.0) >= SURE_CHANGE
                   for i, r in enumerate(reading.containers))

    def _stray_changes_dropped(self, reading: TableReading) -> TableReading:
        """``reading`` with every container the hand never came over (``_came_over``) that reads
        changed by under ``STRAY_CHANGE`` of a bean's area taken as unchanged: a bean put there
        changes about a bean's area, a shift of the light a little of a heap's."""
        came = self._came_over()
        stray = {i for i, r in enumerate(reading.containers)
                 if r.changed and i not in came and r.change is not None and r.change < STRAY_CHANGE}
        if not stray:
            return reading
        return replace(reading, containers=tuple(replace(r, changed=False) if i in stray else r
                                                 for i, r in enumerate(reading.containers)))

    def _came_over(self) -> set[int]:
        """The containers the hand came over since the last still table, if only a little
        (``CAME_COVER`` of it seen moving at once, or touched)."""
        return {i for i, c in self.cover.items() if c >= CAME_COVER} | self.touched

    def _plausible(self, before: TableState, best: TableState, rival: TableState) -> bool:
        """Whether ``rival`` could be the move played instead of ``best``: the hand came over,
        if only a little (``CAME_COVER``), every container it changes that ``best`` leaves as it
        was.  Asked only when ``best`` explains the whole table (``decide``): the cover is
        measured on a thumbnail between frames, and a hand that dropped a bean in a cup may
        never show over it (held-out seed 9201 cups-6, move 3: d5x played, cup 5 covered 0.00
        in daylight, 0.05 under the lamp; seed 9203 cups-6, move 1: d2 played, cup 2 covered
        0.13 and 0.18), so it rules a rival out only where nothing else is left to explain."""
        b, x, y = before.as_counts(), best.as_counts(), rival.as_counts()
        came = self._came_over()
        extra = [i for i in range(len(b)) if y[i] != b[i] and x[i] == b[i]]
        cups, row = 2 * before.cups_per_row, before.cups_per_row
        # a hand that came over a later cup of the rival's run in the same row passed the cups
        # before it (seed 3001 cups-6, move 9: d5 played, cup 5 covered 0.58 but cup 4 only
        # 0.03, d5 ruled out and d3 committed)
        return all(i in came or (i < cups and any(j in came and i < j < cups and j // row == i // row for j in extra))
                   for i in extra)

    def _note(self, judgement: Judgement) -> Judgement:
        self.last_judgement = judgement
        return judgement

    def _against_counts(self, reading: TableReading, game: CupsGame) -> TableReading:
        """While the game waits for a table put right, a container that was disturbed reads as
        changed only when its count no longer fits the game's (the beans put back do not lie
        where they lay)."""
        counts = table_state(game).as_counts()
        cups = 2 * game.rules.cups
        fixed = []
        for i, r in enumerate(reading.containers):
            if i in (self._waiting or ()):
                # a count that cannot be trusted (a heap, a stock, a bowl) cannot say it is wrong
                r = replace(r, changed=i < cups and r.confidence >= SURE
                            and not r.count_low <= counts[i] <= r.count_high)
            fixed.append(r)
        return TableReading(tuple(fixed), reading.hand)

    def _illegal(self, game: CupsGame, reading: TableReading, ex: Explanation) -> Judgement:
        rule, changed = illegal_rule(game, reading)
        first = self._waiting is None
        self._waiting = sorted(set(self._waiting or ()) | set(changed))
        self.pending = None
        text = f"{rule}: put the table back as the game shows it"
        self._wait_text = text
        if first or self.last_judgement is None or self.last_judgement.text != text:
            names = container_names(game.rules.cups)
            self.session.alert("illegal", text, {"containers": [names[i] for i in changed],
                                                 "position": game.text()})
        return self._note(Judgement("illegal", text, ex))

    def _ask(self, game: CupsGame, moves: list[CupsMove], ex: Explanation) -> Judgement:
        texts = [game.move_text(m) for m in moves]
        if len(texts) == 1:
            reason = f"not sure: {texts[0]}?"
        else:
            reason = "which move was it: " + " or ".join(texts) + "?"
        same = self.pending is not None and [c[0] for c in self.pending.candidates] == moves
        if not same:
            self.pending = Pending([(m,) for m in moves], reason)
            self.session.alert("ambiguous", reason, {"candidates": texts, "squares": []})
        return self._note(Judgement("ambiguous", reason, ex))

    def _play_forced(self) -> None:
        """Play the forced pass of a player without a move: the table does not change."""
        board = self.session.board
        while not self.session.over and board.legal_moves() == [Pass()]:
            self.session.play(Pass(), source="camera", notes={"forced": "yes"})
        self._ply = board.ply

    # ------------------------------------------------------------------ people
    def confirm(self, index: int = 0) -> None:
        """Play candidate ``index`` of the pending question; the table as last read becomes
        the reference."""
        with self.session.lock:
            if self.pending is None:
                raise SessionError("there is no detected move waiting")
            if not 0 <= index < len(self.pending.candidates):
                raise SessionError(f"choose a candidate from 0 to {len(self.pending.candidates) - 1}")
            moves = self.pending.candidates[index]
            self.pending = None
            for move in moves:
                self.session.play(move, source="confirmed")
            if self._frame is not None:
                self._set_stable(self._frame)
            self._play_forced()

    def dismiss(self) -> None:
        """Forget the pending question (the players tap the move in, or put the table back)."""
        self.pending = None

    @property
    def waiting(self) -> str | None:
        """The alert of an illegal change while the game waits for the table to be put right,
        else None (also once moves were tapped in or taken back since: the next still table
        is then read afresh)."""
        if self._waiting is None or self.session.board.ply != self._ply:
            return None
        return self._wait_text

    def resync(self) -> None:
        """The players say the table shows the game's position: forget any question or alert,
        and take the next still table as the game shows it, without judging it.  Journalled
        (``resync``), as the players' word; SessionError when the game is over."""
        with self.session.lock:
            if self.session.over:
                raise SessionError("the game is over: the camera has no more moves to watch for")
            self._rebase()
            self.session.alert("resync", RESYNC_TEXT, {"position": self.session.board.text()})


class CupsCamera:
    """What the live referee asks of a camera for Cups games: a referee for a session, or the
    reason there is none (``problem``: the table is not calibrated).  With ``data_dir``, the
    set-up saved there is read again whenever the wizard has saved a new one since, so a table
    calibrated while the server runs is refereed from the next game (or camera resume) on."""

    def __init__(self, setup: CupsSetup | None, problem: str | None = None, margin: float = MARGIN,
                 data_dir: Path | None = None) -> None:
        self.setup = setup
        self.problem = problem if setup is None else None
        self.margin = margin
        self.data_dir = data_dir
        self._saved = self._stamp()

    def _stamp(self) -> float | None:
        """When the saved set-up was last written (None: none saved, or no data folder)."""
        if self.data_dir is None:
            return None
        try:
            return setup_path(self.data_dir).stat().st_mtime
        except OSError:
            return None

    def referee(self, session: GameSession) -> CupsReferee:
        """A referee for ``session``; ValueError saying why not."""
        stamp = self._stamp()
        if stamp is not None and stamp != self._saved:
            try:
                self.setup, self.problem = cups_setup(None, self.data_dir), None
            except CupsSetupMissing as e:
                self.setup, self.problem = None, str(e)
            self._saved = stamp
        if self.setup is None:
            raise CupsSetupMissing(self.problem or "calibrate the Cups table first")
        return CupsReferee(session, self.setup, margin=self.margin)


# ---------------------------------------------------------------------------- demo camera
DEMO_LAYOUT = "cups-4"
DEMO_STILL_FRAMES = 40  # frames each table is held (the camera thread reads at most 10 a second)
DEMO_MOVE_FRAMES = 6  # frames a hand takes to make a move
DEMO_END_FRAMES = 60  # the last table stays up this long before it is cleared for a new game


def demo_moves(rules: CupsRules, rng: random.Random) -> list[CupsMove]:
    """A game of ``rules`` as a person might play it without much thought: a sow or a capture
    when there is one, else a drop of a random size (at most 300 moves)."""
    game = rules.new_game()
    moves = []
    while game.outcome() is None and len(moves) < 300:
        legal = game.legal_moves()
        good = [m for m in legal if isinstance(m, Sow) or (isinstance(m, Drop) and game.captures(m))]
        move = rng.choice(good) if good and rng.random() < 0.7 else rng.choice(legal)
        moves.append(move)
        game.push(move)
    return moves


class CupsDemoCamera(FrameSource):
    """A synthetic camera over a Cups table playing game after game (``demo_moves``), drawn by
    the Cups renderer (``iter_script_frames``): a hand makes each move, each table is held a
    while, the table is cleared between games.  ``new_game_at(index)`` tells the live
    referee that frame ``index`` is the first still frame of a new game's table.  A still
    table is rendered once and its picture repeated."""

    name = "synthetic"

    def __init__(self, rules: CupsRules | None = None, layout: str | None = None, seed: int = 0,
                 style: str = "daylight", still_frames: int = DEMO_STILL_FRAMES,
                 move_frames: int = DEMO_MOVE_FRAMES, end_frames: int = DEMO_END_FRAMES, fps: float = 10.0,
                 games: int | None = None) -> None:
        if layout is None:  # the shipped table with the game's cups, else the standard one
            layout = f"cups-{rules.cups}" if rules is not None and rules.cups in (4, 6) else DEMO_LAYOUT
        self.layout = load_layout(layout)
        self.rules = rules or CupsRules(cups=self.layout.cups_per_row)
        if self.rules.cups != self.layout.cups_per_row:
            raise ValueError(f"the {layout} table has {self.layout.cups_per_row} cups a row, the game {self.rules.cups}")
        self.seed, self.style, self.fps = seed, style, fps
        self.still_frames, self.move_frames, self.end_frames = still_frames, move_frames, end_frames
        self.games = games  # None: endless; else the source ends after that many games
        self.played: list[list[CupsMove]] = []  # each game's moves, as they were drawn
        self.starts: dict[int, int] = {}  # first still frame of each game -> its number
        self._frames: Iterator[ScriptFrame] | None = None
        self._opened = False

    def _states(self) -> Iterator[TableState]:
        rng = random.Random(self.seed)
        n = 0
        while self.games is None or n < self.games:
            game = self.rules.new_game()
            moves = demo_moves(self.rules, rng)
            self.played.append(moves)
            states = [table_state(game)]
            for move in moves:
                game.push(move)
                if not isinstance(move, Pass):  # a pass leaves the table as it is
                    states.append(table_state(game))
            first = self._step + 1
            self._game_steps.append(first)
            self._end_steps.add(first + len(states) - 1)
            for state in states:
                self._step += 1
                yield state
            n += 1

    def open(self) -> None:
        """Start the first game."""
        self._step = -1
        self._game_steps: list[int] = []
        self._end_steps: set[int] = set()
        self.played, self.starts = [], {}
        self._frames = iter_script_frames(self.layout, self._states(), self.seed, self.style,
                                          still_frames=1, move_frames=self.move_frames)
        self._i = 0
        self._hold: tuple[np.ndarray, int] | None = None
        self._announced: set[int] = set()
        self._opened = True

    def setup(self) -> CupsSetup:
        """The Cups set-up of this camera: calibration from the render pose, and a frame of
        the same table with every container empty."""
        empty = TableState.from_counts([0] * (2 * self.layout.cups_per_row + 4))
        scene = random_cups_scene(self.layout, table_state(self.rules.new_game()), self.seed, self.style)
        rng = np.random.default_rng([self.seed, 77])
        cleared = replace(scene, beans=arrange(self.layout, empty, scene.look, scene.offsets, rng))
        image, _ = render_cups(cleared, self.seed * 1000 + 999_999)
        cal = from_pose(scene.intrinsics, scene.pose, scene.look.beans.size_mm)
        return CupsSetup(self.layout, cal, image)

    def new_game_at(self, index: int) -> bool:
        """True when frame ``index`` (already read) is the first still frame of a new game."""
        return index in self.starts

    def read(self) -> Frame:
        """The next frame."""
        if not self._opened or self._frames is None:
            raise SourceUnavailable("demo camera: open() it first")
        if self._hold is not None and self._hold[1] > 0:
            image, left = self._hold
            self._hold = (image, left - 1)
        else:
            try:
                sf = next(self._frames)
            except StopIteration:
                raise EndOfStream("the demo camera's games are over") from None
            image = sf.image
            if not sf.truth.hand:
                hold = self.end_frames if sf.step in self._end_steps else self.still_frames
                self._hold = (image, hold - 1)
                if sf.step in self._game_steps and sf.step not in self._announced:
                    self._announced.add(sf.step)
                    self.starts[self._i] = self._game_steps.index(sf.step)
            else:
                self._hold = None
        frame = Frame(image=image.copy(), timestamp=self._i / self.fps, index=self._i)
        self._i += 1
        return frame

    def close(self) -> None:
        """Stop the games."""
        self._opened = False
        self._frames = None
