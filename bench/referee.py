"""Live-referee benchmark: random legal games rendered as camera streams with hands moving
the cups (and hands that only hover), refereed frame by frame, the players answering the phone.

    python bench/referee.py [--games 50] [--set gobblet-jr] [--seed 0] [--plies 12] [--quick 0.3] [--only 3,7 --verbose]
                            [--misread landing|after] [--style polygon|shaded] [--measure-set] [--no-learn]
                            [--no-answers] [--record DIR | --replay DIR]

The players (``Players``): whenever a hand is about to come over the board, and at the end,
they look at the phone.  When it asks (a detected move to confirm or choose, a square in
doubt) they take 2 s of stream time, the board resting as it is, and answer with the truth
through the referee's own methods, the ones the phone's routes reach (``/api/camera/confirm``,
``/dismiss``, ``/doubt`` -> ``LiveReferee`` -> ``Referee``): the right candidate (counted
*asked*), or dismiss and tap the moves in when it is not among them (*asked without it*);
"the game is right" or not about a square (a square reads unlike the game: e.g. a cup read as
gone that shows nowhere else, which the referee asks about rather than alerting).  An alert
(illegal, disagrees, ...) while the move made was legal is a *false alarm*, cleared by
tapping the move in; a wrong commit is taken back (a *false move*, then handled like any move
not recorded).  A move not on the record
with nothing on the phone is left to the referee (it may commit it with the next); one still
missing at the end of the stream with nothing to answer is *missed*, and its game *stalled*:
the referee stopped in a way no answer on the phone resumes.

Figures: moves recorded right (the script's move at that ply), and how: committed by the
camera alone, asked, false alarm, missed; false moves (recorded or announced moves the script
does not make there); the delay from the hand leaving after a move (the first frame without
a hand once the move is on the board) to the camera's commit, in stream time; and frames per
second of recognise+track on one core (CPU time of ``Referee.process``, held frames
included; rendering is not counted).  ``--no-answers``: nobody answers (the stream runs as
scripted; the figures before issue 19's answering bench), a game *stalled* when fewer moves
were recorded than the script made.

``--record DIR`` keeps, per game, what the tracker was told at each stream frame (observation
and motion), as JSON (``recording_json``; ``tests/data/referee`` holds some, replayed by
``tests/test_referee_recorded.py``); ``--replay DIR`` referees those games again (JSON, or the
pickles recordings used to be) with the tracker as it is now, in
seconds, with no rendering or recognition (held frames repeat the last observation, and the
recogniser does not learn from play in between: a replay approximates a live run of the same
seed, it does not replace one).

The referee learns from the positions it commits (``vision.adapt.PlayLearner``) unless
``--no-learn``; its training runs on a thread of its own, so its time is not in the frames per
second, and where the new weights take over depends on the machine's load.

``--misread`` puts one persistent misread into each game, as glare on a glossy light top did on
the issue's held-out renderer (the project's own renderer never fools its recogniser so): the
square of White's first cup reads dark whenever a light cup stands on it, from the moment
that cup lands (``landing``) or from once its move is recorded (``after``).
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from companion.demo import calibrate_demo  # noqa: E402
from companion.referee import Referee  # noqa: E402
from companion.session import GameSession  # noqa: E402
from engine.gobblet import Board, Rules  # noqa: E402
from engine.gobblet.notation import format_moves  # noqa: E402
from engine import variant  # noqa: E402
from hardware.synthetic import render_scene  # noqa: E402
from vision.evaluate import layout_scene  # noqa: E402
from vision.set_measure import measure_set  # noqa: E402
from hardware.frames import EndOfStream, Frame  # noqa: E402
from vision.observation import CUP, EMPTY, OCCLUDED, Observation, SquareReading  # noqa: E402
from tests.referee_streams import (  # noqa: E402
    StagedCamera,
    game_steps,
    misread_light,
    positions_of,
    recorded_moves,
    referee_for,
)

GAME_OF_SET = {"gobblet-jr": "gobblet-jr", "gobblet": "gobblet", "storer-clear": "storer"}


def random_game(rules: Rules, rng: np.random.Generator, plies: int) -> list[str]:
    """A random legal game of at most ``plies`` moves (it stops at a result)."""
    board = Board(rules)
    moves: list[str] = []
    while len(moves) < plies and board.outcome() is None:
        legal = list(board.legal_moves())
        move = legal[int(rng.integers(len(legal)))]
        moves.append(board.move_text(move))
        board.push(move)
    return moves


@dataclass
class Totals:
    """The figures summed over games."""

    games: int = 0
    exact_games: int = 0
    script_moves: int = 0
    correct: int = 0
    false_moves: int = 0
    delays: list[float] = field(default_factory=list)
    frames: int = 0
    cpu: float = 0.0
    alerts: dict[str, int] = field(default_factory=dict)
    stalled: int = 0
    misread_frames: int = 0
    # with the players answering the phone (the default; see ``Players``): per script move,
    # how it got into the record
    alone: int = 0  # committed by the camera alone, right
    asked: int = 0  # asked on the phone with the right move among the candidates, confirmed
    asked_wrong: int = 0  # asked without the right move: dismissed and tapped in
    false_alarms: int = 0  # an alert on the legal move made: cleared by tapping it in
    missed: int = 0  # never recorded, nothing on the phone to answer
    doubts_answered: int = 0  # squares in doubt answered (the game right or not there)
    doubts_game_wrong: int = 0  # ... of which the game was not right
    questions: list[str] = field(default_factory=list)


def hands_gone(camera: StagedCamera, positions: list) -> list[float]:
    """Per script move, the stream time of the first frame without a hand once the move is
    on the board: the moment the referee can start to see it."""
    times: list[float] = []
    k, i = 1, 0
    while k < len(positions) and i < camera.frame_count:
        if camera.position_at(i) == positions[k]:
            while i < camera.frame_count and camera.hand_at(i):
                i += 1
            times.append(i / camera.fps)
            k += 1
        else:
            i += 1
    return times


def bench_game(index: int, args: argparse.Namespace, totals: Totals) -> str:
    """Render and referee one game; add its figures to ``totals``; a one-line summary."""
    rng = np.random.default_rng(args.seed * 100_003 + index)
    rules = variant(GAME_OF_SET[args.set])
    moves = random_game(rules, rng, args.plies)
    positions = positions_of(rules, args.set, moves)
    hovers = [k for k in range(1, len(positions)) if rng.random() < args.hover]
    # drawn only when asked for, so the games of a seed stay as they were without --quick
    quick = [k for k in range(1, len(positions) - 1) if args.quick and rng.random() < args.quick]
    steps = game_steps(positions, still=args.still, move=args.move, hovers=hovers, quick=quick)
    camera = StagedCamera(steps, seed=args.seed * 1000 + index, pieces=args.set, fps=args.fps, style=args.style)
    with tempfile.TemporaryDirectory() as data:
        if args.measure_set:  # calibrated as the wizard does: the empty board, then the set measured
            calibration = calibrate_demo(camera)
            scene = layout_scene(camera.base, None)
            calibration = measure_set(calibration, render_scene(scene, camera.seed + 2)[0]).calibration
            session = GameSession.new(Path(data), rules)
            referee = Referee(session, calibration, learn=args.learn)
        else:
            session, referee = referee_for(Path(data), rules, camera, learn=args.learn)
        spoiled = None
        if args.misread != "none":
            square, ply = first_light_cup(rules, moves)
            when = (lambda: True) if args.misread == "landing" else (lambda: session.board.ply >= ply)
            spoiled = misread_light(referee, square, when)
        camera.open()
        if args.answers:
            players = Players(camera, referee, session, rules, moves, positions, args, totals, index)
            players.play()
            recorded = game_moves(session)
            if spoiled is not None:
                totals.misread_frames += spoiled.frames
            _alerts(session, totals, args)
            session.close()
            return _tally(players, moves, recorded, totals, index)
        gone = hands_gone(camera, positions)
        announced: list[str] = []
        while True:
            try:
                frame = camera.read()
            except EndOfStream:
                break
            start = time.process_time()
            events = referee.process(frame)
            totals.cpu += time.process_time() - start
            totals.frames += 1
            for e in events:
                if e.kind == "moves":
                    # a move committed late (it waited for a later state to confirm it)
                    # counts from when the hand left after that move, not the latest hand
                    for move in e.text.split(", "):
                        if len(announced) < len(gone):
                            totals.delays.append(frame.timestamp - gone[len(announced)])
                        announced.append(move)
        recorded = recorded_moves(session)
        if spoiled is not None:
            totals.misread_frames += spoiled.frames
        _alerts(session, totals, args)
        session.close()
    good = sum(1 for a, b in zip(recorded, moves) if a == b)
    false = max(_wrong(recorded, moves), _wrong(announced, moves))
    totals.games += 1
    totals.exact_games += recorded == moves
    totals.script_moves += len(moves)
    totals.correct += good
    totals.false_moves += false
    totals.stalled += len(recorded) < len(moves)
    mark = "ok" if recorded == moves else f"MISSED: script {' '.join(moves)} / recorded {' '.join(recorded)}"
    return f"game {index:3d}: {len(moves):2d} moves, {good:2d} right  {mark}"


PROBLEMS = ("illegal", "disagrees", "hidden-mismatch", "behind", "pending", "ambiguous")
ANSWER_S = 2.0  # stream time the players take to read the phone and answer
AFTER_S = 1.0  # stream time the board then rests before the game goes on


def game_moves(session: GameSession) -> list[str]:
    """The moves of the session's game as it stands (taken-back moves left out)."""
    board = Board(session.board.rules)
    texts = []
    for move in session.board.move_stack:
        if move is None:
            continue
        texts.append(board.move_text(move))
        board.push(move)
    return texts


class Players:
    """One game's stream through the referee, with the players doing what the phone asks.

    Whenever a hand is about to come over the board (and at the end of the stream) the
    players look at the game as the phone shows it.  When the phone asks (a detected move to
    confirm or choose, a square in doubt) they take ``ANSWER_S`` of stream time, the board
    resting as it is, then answer with the truth through the referee's own methods, the ones
    the phone's routes reach (``LiveReferee.confirm`` / ``dismiss`` / ``answer_doubt`` ->
    ``Referee``): the right candidate, or dismiss and tap the moves in when it is not among
    them; "the game is right" or not for a square in doubt.  The board then rests ``AFTER_S``
    more.  A move recorded wrong is taken back (and counted false); an alert while the move
    made is legal (a false alarm) is cleared by tapping the move in.  A move that is not on
    the record with nothing on the phone is left to the referee (it may commit it with the
    next); one still missing at the end of the stream, with nothing to answer, is missed, and
    its game stalled."""

    def __init__(self, camera: StagedCamera, referee: Referee, session: GameSession, rules: Rules,
                 moves: list[str], positions: list, args: argparse.Namespace, totals: Totals, index: int) -> None:
        self.camera, self.referee, self.session, self.rules = camera, referee, session, rules
        self.moves, self.positions, self.args, self.totals, self.index = moves, positions, args, totals, index
        self.clock = 0  # frames fed, held ones included: stream time is clock / fps
        self.how: dict[int, str] = {}  # per ply, how the script's move got into the record
        self.gone: dict[int, float] = {}  # per script position k >= 1, when the hand left it
        self.journal_seen = 0  # journal events already looked at
        self.image = None
        self.script_frame: int | None = None  # the stream's frame being fed (None: a held one)
        self.record: dict | None = {} if args.record else None  # per stream frame, what the tracker was told
        self.notes: list[str] = []
        self.stalled = False

    @property
    def alone(self) -> int:
        """Moves the camera committed alone, right."""
        return sum(1 for h in self.how.values() if h == "alone")

    @property
    def alone_all(self) -> bool:
        """True when the camera recorded every move alone."""
        return self.alone == len(self.moves)

    def feed(self, image) -> None:
        """One frame to the referee, at the next stream time."""
        self.image = image
        t = self.clock / self.args.fps
        before = self.session.board.ply
        start = time.process_time()
        self.referee.process(Frame(image=image, timestamp=t, index=self.clock))
        self.totals.cpu += time.process_time() - start
        if self.record is not None and self.script_frame is not None:
            self.record[self.script_frame] = (self.referee.last_observation, self.referee.last_motion)
        self.totals.frames += 1
        self.clock += 1
        played = game_moves(self.session)
        for p in range(before, len(played)):
            if p < len(self.moves) and played[p] == self.moves[p] and played[:p] == self.moves[:p]:
                self.how[p] = "alone"
                if p + 1 in self.gone:
                    self.totals.delays.append(t - self.gone[p + 1])

    def hold(self, seconds: float) -> None:
        """The board rests as it is for ``seconds`` of stream time."""
        self.script_frame = None
        for _ in range(int(round(seconds * self.args.fps))):
            self.feed(self.image)

    def play(self) -> None:
        """The whole stream, the players answering at each pause."""
        cam = self.camera
        k = 0
        for i in range(cam.frame_count):
            frame = cam.read() if not isinstance(cam, Replayed) else None
            hand = cam.hand_at(i)
            if hand and i > 0 and not cam.hand_at(i - 1):
                self.look(k, final=False)
            while k + 1 < len(self.positions) and cam.position_at(i) == self.positions[k + 1]:
                k += 1
            if not hand and k >= 1 and k not in self.gone:
                self.gone[k] = self.clock / self.args.fps
            self.script_frame = i
            self.feed(i if frame is None else frame.image)
        self.look(k, final=True)
        self.count()
        if self.record is not None:
            path = Path(self.args.record) / f"{self.args.set}-{self.args.style}-{self.args.seed}-{self.index}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            data = {"moves": self.moves, "positions": self.positions, "record": self.record,
                    "hands": [cam.hand_at(i) for i in range(cam.frame_count)],
                    "at": [cam.position_at(i) for i in range(cam.frame_count)]}
            path.write_text(json.dumps(recording_json(data), separators=(",", ":")))

    def truth_top(self, k: int, square: int):
        """(colour, size class) on top of ``square`` in the script's position ``k``, or None."""
        stack = self.positions[k][square]
        return tuple(stack[-1]) if stack else None

    def look(self, k: int, final: bool) -> None:
        """The players look at the phone with the script's first ``k`` moves on the board."""
        session, referee = self.session, self.referee
        self._take_back_wrong()
        for _ in range(4):  # a confirmed move may leave a doubt to answer, and so on
            asks = referee.pending is not None or referee.tracker.open_doubts(session.board)
            if not asks and not (final and session.board.ply < k):
                break
            self.hold(ANSWER_S)
            self._take_back_wrong()
            if referee.pending is not None and session.board.ply < k:
                self._answer_pending(k)
                self.journal_seen = len(session.journal.events)  # that question is answered
            elif referee.pending is not None:
                referee.dismiss()  # a question about nothing the players did
            for doubt in referee.tracker.open_doubts(session.board):
                right = referee._tops()[doubt.square] == self.truth_top(session.board.ply, doubt.square)
                referee.answer_doubt(doubt.square, right)
                self.totals.doubts_answered += 1
                self.totals.doubts_game_wrong += not right
                self.totals.questions.append(f"game {self.index} ply {session.board.ply}: "
                                             f"{session.board.geo.names[doubt.square]} in doubt, game "
                                             f"{'right' if right else 'wrong'} there")
            self.hold(AFTER_S)
            self._take_back_wrong()
            if not asks:
                break
        ply = session.board.ply
        if ply >= k:
            self.journal_seen = len(session.journal.events)
            return
        problems = [e for e in session.journal.events[self.journal_seen:] if e.kind in PROBLEMS]
        if problems or final:
            kind = "false-alarm" if problems else "missed"
            if kind == "missed":
                self.stalled = True
            what = problems[-1].text if problems else "nothing on the phone"
            self._note(f"{kind} at {' '.join(self.moves[ply:k])} ({what})")
            referee.dismiss()
            for p in range(ply, k):
                self.how[p] = kind
                session.play(self.moves[p], source="hand")
            if not final:
                self.hold(AFTER_S)
        self.journal_seen = len(session.journal.events)

    def _answer_pending(self, k: int) -> None:
        """Confirm the right candidate, or dismiss and tap the moves in."""
        session, referee = self.session, self.referee
        ply = session.board.ply
        texts = [format_moves(self.session.board.copy(), c) for c in referee.pending.candidates]
        truth = self.moves[ply:k]
        for i, c in enumerate(texts):
            if c and c == truth[: len(c)]:
                self._note(f"asked {' or '.join(' '.join(t) for t in texts)}: confirmed {' '.join(c)}")
                referee.confirm(i)
                for p in range(ply, ply + len(c)):
                    self.how[p] = "asked"
                return
        self._note(f"asked without the move: {' or '.join(' '.join(t) for t in texts)} (made {' '.join(truth)})")
        referee.dismiss()
        for p in range(ply, k):
            self.how[p] = "asked-wrong"
            session.play(self.moves[p], source="hand")

    def _note(self, text: str) -> None:
        """Keep ``text`` for the game's line (and print it with ``--verbose``)."""
        self.notes.append(text)
        if self.args.verbose:
            print("    " + text)

    def _take_back_wrong(self) -> None:
        """Take back every recorded move that is not the script's (counted false once)."""
        played = game_moves(self.session)
        good = 0
        while good < len(played) and good < len(self.moves) and played[good] == self.moves[good]:
            good += 1
        if good == len(played):
            return
        self.totals.false_moves += len(played) - good
        self._note(f"FALSE {' '.join(played[good:])} (made {' '.join(self.moves[good:good + 1])})")
        while self.session.board.ply > good:
            self.session.take_back()
        for p in list(self.how):
            if p >= good:
                del self.how[p]
        self.referee.dismiss()

    def count(self) -> None:
        """Add how each move got into the record to the totals."""
        t = self.totals
        for h in self.how.values():
            if h == "alone":
                t.alone += 1
            elif h == "asked":
                t.asked += 1
            elif h == "asked-wrong":
                t.asked_wrong += 1
            elif h == "false-alarm":
                t.false_alarms += 1
            else:
                t.missed += 1


class Replayed:
    """A game recorded with ``--record``, played again with what the tracker was told per
    stream frame (no rendering, no recognition): the camera side of ``--replay``."""

    def __init__(self, data: dict) -> None:
        self.data = data
        self.frame_count = len(data["hands"])

    def hand_at(self, index: int) -> bool:
        """True when frame ``index`` shows a hand."""
        return self.data["hands"][index]

    def position_at(self, index: int):
        """The position frame ``index`` shows."""
        return self.data["at"][index]


class ReplayReferee(Referee):
    """A ``Referee`` whose frames are a recorded game's observations: ``process`` is given
    the stream frame's number as its image (a held frame repeats it, still)."""

    def __init__(self, session: GameSession, sizes, record: dict) -> None:  # noqa: D107
        from companion.referee import Health
        from vision.tracking import Tracker

        self.health = Health()
        self.session = session
        self.snapshots, self.frames, self._frames_failed, self.learner = False, None, False, None
        self.tracker = Tracker(sizes)
        self._size_class = {size: k for k, size in enumerate(sizes) if size is not None}
        self.pending = None
        self.record = record
        self._last = None
        self.last_observation = None
        self.last_motion = (False, ())
        self._image = None

    def process(self, frame):
        """The recorded observation of the stream frame ``frame.image``."""
        i = frame.image
        obs, (moving, touched) = self.record[i]
        if i == self._last:
            moving, touched = False, ()
        self._last = i
        with self.session.lock:
            board = self.session.board
            events = [] if self.session.over else self.tracker.update(board, obs, frame.timestamp, moving, touched)
            for event in events:
                self._act(event)
        return events


STATES = (EMPTY, CUP, OCCLUDED)  # a square reading's state in a recording, by its index


def recording_json(data: dict) -> dict:
    """A recorded game (``moves``, ``positions``, per stream frame ``record``: (observation,
    (motion, touched)), ``hands``, ``at``) in plain JSON values: per frame the position's
    index in ``positions`` and each square's reading as [state, colour, size, confidence]."""
    positions = [list(map(list, p)) for p in data["positions"]]
    frames = {}
    for i, (obs, (moving, touched)) in data["record"].items():
        frames[str(i)] = {
            "squares": [[STATES.index(r.state), r.colour, r.size, round(r.confidence, 5)] for r in obs.squares],
            "found": obs.board_found, "markers": list(obs.markers_seen), "hand": obs.hand,
            "motion": moving, "touched": list(touched)}
    return {"moves": data["moves"], "positions": positions, "hands": data["hands"],
            "at": [data["positions"].index(p) for p in data["at"]], "frames": frames}


def recording_from_json(value: dict) -> dict:
    """The recorded game ``recording_json`` wrote, as ``--record`` keeps it in memory."""
    positions = [tuple(tuple(tuple(cup) for cup in stack) for stack in p) for p in value["positions"]]
    record = {}
    for i, f in value["frames"].items():
        squares = tuple(SquareReading(STATES[state], colour, size, conf) for state, colour, size, conf in f["squares"])
        obs = Observation(squares, f["found"], tuple(f["markers"]), hand=f["hand"])
        record[int(i)] = (obs, (f["motion"], tuple(f["touched"])))
    return {"moves": value["moves"], "positions": positions, "record": record, "hands": value["hands"],
            "at": [positions[k] for k in value["at"]]}


def load_recording(path: Path) -> dict:
    """A game recorded with ``--record`` (JSON; older recordings were pickles)."""
    if path.suffix == ".pkl":
        return pickle.loads(path.read_bytes())
    try:
        return recording_from_json(json.loads(path.read_text()))
    except (ValueError, KeyError, TypeError, IndexError) as e:
        raise SystemExit(f"{path}: not a game recorded with --record ({e})") from None


def replay_game(path: Path, args: argparse.Namespace, totals: Totals) -> str:
    """Referee a game recorded with ``--record`` again (the tracker as it is now)."""
    data = load_recording(path)
    rules = variant(GAME_OF_SET[args.set])
    index = int(path.stem.rsplit("-", 1)[1])
    with tempfile.TemporaryDirectory() as folder:
        session = GameSession.new(Path(folder), rules)
        from hardware.pieces import load_piece_set

        sizes = load_piece_set(args.set).logical_sizes_for(rules.sizes)
        referee = ReplayReferee(session, sizes, data["record"])
        players = Players(Replayed(data), referee, session, rules, data["moves"], data["positions"], args, totals,
                          index)
        players.play()
        recorded = game_moves(session)
        _alerts(session, totals, args)
        session.close()
    return _tally(players, data["moves"], recorded, totals, index)


def _tally(players: Players, moves: list[str], recorded: list[str], totals: Totals, index: int) -> str:
    """Add one answered game's figures to ``totals``; its one-line summary."""
    totals.games += 1
    totals.exact_games += players.alone_all
    totals.script_moves += len(moves)
    totals.correct += sum(1 for a, b in zip(recorded, moves) if a == b)
    totals.stalled += players.stalled
    mark = "ok" if players.alone_all else "; ".join(players.notes)
    return f"game {index:3d}: {len(moves):2d} moves, {players.alone:2d} alone  {mark}"


def _alerts(session: GameSession, totals: Totals, args: argparse.Namespace) -> None:
    """Count (and with ``--verbose`` print) the game's alerts."""
    for e in session.journal.events:
        if e.kind not in ("start", "move", "end", "lifted", "take-back", "takeback"):
            totals.alerts[e.kind] = totals.alerts.get(e.kind, 0) + 1
            if args.verbose:
                print(f"    {e.kind}: {e.text}")


def first_light_cup(rules: Rules, moves: list[str]) -> tuple[int, int]:
    """The square of White's (light's) first move, and the ply after which it stands there."""
    board = Board(rules)
    for text in moves:
        move = board.parse_move(text)
        light = board.turn == 0
        board.push(move)
        if light:
            return move.to, board.ply
    raise ValueError("White never moves in this game")


def _wrong(seen: list[str], script: list[str]) -> int:
    """Moves in ``seen`` that are not the script's move at their ply."""
    return sum(1 for k, a in enumerate(seen) if k >= len(script) or a != script[k])


def report(t: Totals, args: argparse.Namespace) -> str:
    """The summary figures as text."""
    lines = [
        f"set {args.set}, {t.games} games, {t.script_moves} moves, {t.frames} frames",
        f"moves recorded correctly: {t.correct}/{t.script_moves} = {100 * t.correct / max(1, t.script_moves):.1f} %"
        f"  (games exact: {t.exact_games}/{t.games})",
        f"false moves: {t.false_moves}",
        f"games stalled: {t.stalled}/{t.games}",
    ]
    if args.answers:
        lines[1] = (f"moves recorded right: {t.correct}/{t.script_moves}: committed alone {t.alone}, asked {t.asked} "
                    f"(right among the candidates) + {t.asked_wrong} (not among them), false alarms "
                    f"{t.false_alarms}, missed {t.missed}  (games all alone: {t.exact_games}/{t.games})")
        lines.append(f"squares in doubt answered: {t.doubts_answered} ({t.doubts_game_wrong} where the game was wrong)")
    # the scripted hands lift only the cup they move and touch no other: every such alert is false
    touches = {k: t.alerts.get(k, 0) for k in ("touch-move", "touch-opponent")}
    lines.append("touch alerts with no touch: " + ", ".join(f"{k} {n}" for k, n in touches.items()))
    if args.misread != "none":
        lines.append(f"misread ({args.misread}): {t.misread_frames} frames with a light top read as dark")
    if t.delays:
        d = sorted(t.delays)
        p95 = d[min(len(d) - 1, int(round(0.95 * (len(d) - 1))))]
        lines.append(f"delay hand gone -> commit: median {statistics.median(d):.2f} s, p95 {p95:.2f} s, "
                     f"max {d[-1]:.2f} s (stream time, {args.fps:g} fps)")
    lines.append(f"recognise+track: {1000 * t.cpu / max(1, t.frames):.1f} ms CPU per frame = "
                 f"{t.frames / max(t.cpu, 1e-9):.1f} frames/s on one core (1280x720)")
    if t.alerts:
        lines.append("alerts: " + ", ".join(f"{k} {v}" for k, v in sorted(t.alerts.items())))
    return "\n".join(lines)


def main() -> int:
    """Run the benchmark and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--style", default="polygon", choices=["polygon", "shaded"],
                    help="the renderer's look: polygon (what the models were fitted on) or shaded (held out)")
    ap.add_argument("--measure-set", action="store_true", help="calibrate as the wizard does, with the set measured")
    ap.add_argument("--no-learn", dest="learn", action="store_false",
                    help="the recogniser does not learn from the positions it commits (vision.adapt.PlayLearner)")
    ap.add_argument("--set", default="gobblet-jr", choices=sorted(GAME_OF_SET))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plies", type=int, default=12, help="longest game (games stop at a result)")
    ap.add_argument("--still", type=int, default=8, help="frames the board rests after each move")
    ap.add_argument("--move", type=int, default=6, help="frames a hand is over the board per move")
    ap.add_argument("--hover", type=float, default=0.2, help="chance of a hand that only hovers after a move")
    ap.add_argument("--quick", type=float, default=0.0, help="chance that a move and its reply are made under "
                    "one hand visit, with no still board between them")
    ap.add_argument("--fps", type=float, default=10.0, help="stream frame rate (the renderer's)")
    ap.add_argument("--only", default="", help="comma-separated game numbers to run (to look at one)")
    ap.add_argument("--verbose", action="store_true", help="print each game's alerts")
    ap.add_argument("--no-answers", dest="answers", action="store_false",
                    help="nobody answers the phone: the stream runs as scripted (the figures before issue 19's "
                         "answering bench)")
    ap.add_argument("--misread", default="none", choices=["none", "landing", "after"],
                    help="one persistent misread per game: White's first cup read dark (see above)")
    ap.add_argument("--record", default="", help="keep what the tracker was told per frame in this folder "
                    "(one file per game), for --replay")
    ap.add_argument("--replay", default="", help="referee again the games recorded in this folder with the "
                    "tracker as it is now (no rendering or recognition; --set and --style pick the files)")
    ap.add_argument("--replay-seed", type=int, default=None, help="with --replay: only the games recorded with "
                    "this seed (all of the folder's by default)")
    args = ap.parse_args()
    cv2.setNumThreads(1)  # one core
    totals = Totals()
    if args.replay:
        args.answers = True
        seeds = "*" if args.replay_seed is None else str(args.replay_seed)
        paths = sorted((p for p in Path(args.replay).glob(f"{args.set}-{args.style}-{seeds}-*.*")
                        if p.suffix in (".json", ".pkl")),
                       key=lambda p: [int(x) for x in p.stem.split("-")[-2:]])
        for path in paths:
            print(f"{path.stem}: " + replay_game(path, args, totals), flush=True)
        print(report(totals, args), flush=True)
        return 0
    games = [int(g) for g in args.only.split(",")] if args.only else range(args.games)
    for i in games:
        print(bench_game(i, args, totals), flush=True)
        if (i + 1) % 10 == 0 and i + 1 < args.games:
            print(report(totals, args) + "\n", flush=True)  # figures so far, for long runs
    print(report(totals, args), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
