"""Rendered Cups games as camera streams, for the Cups referee's tests and bench: a game of
engine moves (or any tables, an illegal one among them) drawn by the Cups renderer, each
still table held a few frames, and a runner that feeds the stream to a ``CupsReferee`` and
says which frame each move was committed on."""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from calibration.cups import CupsSetup
from companion.cups_camera import CupsReferee, demo_moves, table_state
from companion.session import GameSession
from engine.cups.game import CupsGame, Pass
from engine.cups.rules import CupsRules
from hardware.cups.layout import CupsLayout, load_layout
from hardware.cups.state import TableState
from hardware.frames import Frame
from hardware.render.cups import arrange, random_cups_scene, render_cups, script_frames
from vision.cups.calibration import from_pose
from vision.cups.reader import CupsReader, TableReading


@dataclass
class Stream:
    """Frames of a scripted table: ``frames[i]`` shows ``steps[i]`` (the script's table index;
    -1 while a hand is over the table)."""

    layout: CupsLayout
    setup: CupsSetup
    frames: list[Frame]
    steps: list[int]
    tables: list[TableState]


def empty_table(layout: CupsLayout, seed: int, style: str, first: TableState) -> tuple[CupsSetup, np.ndarray]:
    """The set-up of the scene ``script_frames`` draws for ``seed``: calibration from its pose
    and a picture of its table with every container empty."""
    scene = random_cups_scene(layout, first, seed, style)
    zero = TableState.from_counts([0] * len(first.as_counts()))
    rng = np.random.default_rng([seed, 77])
    image, _ = render_cups(replace_beans(scene, arrange(layout, zero, scene.look, scene.offsets, rng)), seed * 7 + 3)
    cal = from_pose(scene.intrinsics, scene.pose, scene.look.beans.size_mm)
    return CupsSetup(layout, cal, image), image


def middle_game(x: int, seed: int) -> TableState:
    """A random middle-game table of ``x`` cups a row: cups 0-4, bowls 0-14, stocks 0-60 beans."""
    rng = np.random.default_rng(seed)
    return TableState(tuple(int(v) for v in rng.integers(0, 5, x)), tuple(int(v) for v in rng.integers(0, 5, x)),
                      (int(rng.integers(0, 15)), int(rng.integers(0, 15))),
                      (int(rng.integers(0, 61)), int(rng.integers(0, 61))))


def read_middle_game(name: str, style: str, seed: int) -> tuple[CupsLayout, TableState, TableReading]:
    """Layout ``name``'s middle-game table for ``seed`` (``middle_game``), rendered in ``style``
    and read by a reader calibrated on its empty table: the layout, the truth and the reading."""
    layout = load_layout(name)
    state = middle_game(layout.cups_per_row, seed)
    setup, _ = empty_table(layout, seed, style, state)
    image, _ = render_cups(random_cups_scene(layout, state, seed, style), seed + 1)
    return layout, state, CupsReader(layout, setup.calibration, setup.empty).read(image)


def replace_beans(scene, beans):
    """``scene`` with other beans."""
    from dataclasses import replace

    return replace(scene, beans=beans)


def stream(layout: CupsLayout, tables: list[TableState], seed: int, style: str = "daylight",
           hold: int = 4, move_frames: int = 3) -> Stream:
    """The rendered frames of ``tables`` in turn: each table rendered once and held ``hold``
    frames, each change made by a hand over ``move_frames`` frames."""
    setup, _ = empty_table(layout, seed, style, tables[0])
    frames: list[Frame] = []
    steps: list[int] = []
    for sf in script_frames(layout, tables, seed, style, still_frames=1, move_frames=move_frames):
        for _ in range(1 if sf.truth.hand else hold):
            frames.append(Frame(sf.image, len(frames) / 10.0, len(frames)))
            steps.append(-1 if sf.truth.hand else sf.step)
    return Stream(layout, setup, frames, steps, tables)


def cached_stream(layout: CupsLayout, tables: list[TableState], seed: int, style: str, kept: Path | None) -> Stream:
    """``stream(layout, tables, seed, style)``, kept pickled in the file ``kept`` (when given)
    and taken from there when it is (rendering is most of a bench's time)."""
    if kept is not None and kept.exists():
        with kept.open("rb") as f:
            return pickle.load(f)
    s = stream(layout, tables, seed, style)
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        with kept.open("wb") as f:
            pickle.dump(s, f, protocol=pickle.HIGHEST_PROTOCOL)
    return s


def game_tables(rules: CupsRules, moves: list) -> list[TableState]:
    """The tables of a game: the start, then after each move that changes the table."""
    game = rules.new_game()
    tables = [table_state(game)]
    for move in moves:
        game.push(move)
        if not isinstance(move, Pass):
            tables.append(table_state(game))
    return tables


def random_moves(rules: CupsRules, seed: int, count: int) -> list:
    """The first ``count`` moves of a demo-style game (no passes: each changes the table)."""
    moves = [m for m in demo_moves(rules, random.Random(seed)) if not isinstance(m, Pass)]
    return moves[:count]


MISPLAYS = ("sow", "theirs")  # ``misplay``'s kinds: a sow without the exact count, a drop into the opponent's cups


def misplay(game: CupsGame, kind: str, rng: random.Random) -> TableState | None:
    """The table after an illegal move of the player to move in ``game`` (not changed), or
    None when there is none of ``kind`` here.  "sow": a cup of the mover's holding beans but
    not its distance to the bowl is sown anyway, one bean per later cup, the beans beyond the
    last cup into the bowl (``illegal_reason``: "can be sown only with exactly").  "theirs": a
    drop of 1 to X beans from the mover's stock into the opponent's cups from their cup 1 (a
    drop puts beans into the mover's own cups only)."""
    x = game.rules.cups
    p = game.turn
    cups = [list(game.cups[0]), list(game.cups[1])]
    bowls, stocks = list(game.bowls), list(game.stocks)
    if kind == "sow":
        wrong = [n for n in range(1, x + 1) if 0 < cups[p][n - 1] != x + 1 - n]
        if not wrong:
            return None
        n = rng.choice(wrong)
        beans, cups[p][n - 1] = cups[p][n - 1], 0
        for j in range(n, n + beans):
            if j < x:
                cups[p][j] += 1
            else:
                bowls[p] += 1
    elif kind == "theirs":
        if stocks[p] == 0:
            return None
        k = rng.randint(1, min(x, stocks[p]))
        stocks[p] -= k
        for j in range(k):
            cups[1 - p][j] += 1
    else:
        raise ValueError(f"no misplay {kind!r}: choose one of {', '.join(MISPLAYS)}")
    return TableState(tuple(cups[0]), tuple(cups[1]), (bowls[0], bowls[1]), (stocks[0], stocks[1]))


def misplay_script(rules: CupsRules, seed: int, moves: int, every: int = 3
                   ) -> tuple[list, list[TableState], list[str | None]]:
    """A game of ``moves`` moves (``random_moves``) in which, before moves ``every - 1``,
    ``2 * every - 1``, ..., the mover first makes an illegal change (``misplay``, the kinds in
    turn, the other where one has none) and puts the table back: the game's moves, its tables
    with the illegal ones and the tables put back, and per table after the first the misplay it
    shows (None: a move's table or a table put back).  ``bench/cups_illegal.py``'s games."""
    truth = random_moves(rules, seed, moves)
    rng = random.Random(seed * 31 + 7)
    game = rules.new_game()
    tables = [table_state(game)]
    kinds: list[str | None] = []
    turn = 0
    for n, move in enumerate(truth, start=1):
        if n % every == every - 1:
            order = MISPLAYS[turn % len(MISPLAYS):] + MISPLAYS[:turn % len(MISPLAYS)]
            for kind in order:
                bad = misplay(game, kind, rng)
                if bad is not None:
                    tables += [bad, table_state(game)]
                    kinds += [kind, None]
                    turn += 1
                    break
        game.push(move)
        tables.append(table_state(game))
        kinds.append(None)
    return truth, tables, kinds


@dataclass
class Run:
    """What the referee made of a stream: the moves journalled (text, source, frame index),
    the alerts (kind, text) and the frames it read in full."""

    moves: list[tuple[str, str, int]] = field(default_factory=list)
    alerts: list[tuple[str, str]] = field(default_factory=list)
    judged: list[int] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)


def run(referee: CupsReferee, frames: list[Frame], run: Run | None = None,
        on_frame=None) -> Run:
    """Feed ``frames`` to ``referee``; what was journalled, frame by frame."""
    import time

    out = run or Run()
    session = referee.session
    current = {"index": -1}

    def listen(event) -> None:
        if event.kind == "move":
            out.moves.append((event.data["move"], event.data["notes"].get("source", ""), current["index"]))
        elif event.kind not in ("start", "end"):
            out.alerts.append((event.kind, event.text))

    session.subscribe(listen)
    try:
        for frame in frames:
            current["index"] = frame.index
            t = time.perf_counter()
            referee.process(frame)
            out.ms.append(1000 * (time.perf_counter() - t))
            if on_frame is not None:
                on_frame(frame)
    finally:
        session.unsubscribe(listen)
    out.judged = list(referee.judged_frames)
    return out


def play_game(tmp_path: Path, layout_name: str, style: str, seed: int, count: int,
              every_hand_frame: bool = False) -> list[str]:
    """A random game of ``count`` moves refereed from its rendered stream as the players would
    take it: a question answered with the right move, a move missed, alerted on or committed
    wrong put right by hand.  Each move's outcome: "right" (committed alone), "asked" (the right
    move among the candidates), "wrong" (another move committed, or asked without the right
    one), "illegal" (an alert on a legal move) or "missed" (nothing committed or asked).  The
    referee sees each move's last hand frame and its still table, or with ``every_hand_frame``
    every frame of the hand's movement, as ``bench/cups_referee.py`` feeds it."""
    layout = load_layout(layout_name)
    rules = CupsRules(cups=layout.cups_per_row)
    truth = random_moves(rules, seed, count)
    s = stream(layout, game_tables(rules, truth), seed, style)
    session = new_session(tmp_path / f"{layout_name}-{style}-{seed}", rules)
    referee = CupsReferee(session, s.setup)
    index = 0

    def feed(i: int) -> None:
        nonlocal index
        referee.process(Frame(s.frames[i].image, index / 10.0, index))
        index += 1

    for i, step in enumerate(s.steps):
        if step == 0:
            feed(i)
    outcomes = []
    for n, move in enumerate(truth, start=1):
        still = [i for i, step in enumerate(s.steps) if step == n]
        hand = []
        j = still[0] - 1
        while j >= 0 and s.steps[j] == -1:
            hand.insert(0, j)
            j -= 1
        assert hand, "each move is drawn with a hand over the table"
        ply = session.board.ply
        text = session.board.move_text(move)
        for i in (hand if every_hand_frame else hand[-1:]) + still:
            feed(i)
        if session.board.ply > ply:
            played = [e for e in session.journal.events if e.kind == "move"][ply].data["move"]
            outcomes.append("right" if played == text else "wrong")
            if played != text:
                while session.board.ply > ply:
                    session.take_back()
                session.play(move, source="hand")
                feed(still[-1])
            continue
        if referee.pending is not None:
            candidates = [c[0] for c in referee.pending.candidates]
            if move in candidates:
                outcomes.append("asked")
                referee.confirm(candidates.index(move))
                continue
            outcomes.append("wrong")
        elif referee.last_judgement is not None and referee.last_judgement.kind == "illegal":
            outcomes.append("illegal")
        else:
            outcomes.append("missed")
        referee.dismiss()
        session.play(move, source="hand")
        feed(still[-1])
    return outcomes


def new_session(data_dir: Path, rules: CupsRules) -> GameSession:
    """A new journalled game of ``rules`` in ``data_dir``."""
    return GameSession.new(Path(data_dir), rules)


def cups_layout(name: str = "cups-4") -> CupsLayout:
    """A shipped layout."""
    return load_layout(name)


class Adds(Protocol):
    """A bench's figures: one game's (or row's) are added to another's."""

    def add(self, other: "Adds") -> None: ...  # noqa: D102


T = TypeVar("T", bound=Adds)


def over_tables(layout: str, style: str, seeds: list[int], play: Callable[[str, str, int], T],
                new: Callable[[], T], report: Callable[[str, T], None]) -> T:
    """Play every seed on each layout and look asked for (``both``: cups-4 and cups-6;
    daylight and lamplight), report each layout and look's figures, then all of them (the
    Cups benches' loop); the figures over all."""
    layouts = ("cups-4", "cups-6") if layout == "both" else (layout,)
    styles = ("daylight", "lamplight") if style == "both" else (style,)
    total = new()
    for name in layouts:
        for look in styles:
            row = new()
            for seed in seeds:
                row.add(play(name, look, seed))
            report(f"{name} {look}", row)
            total.add(row)
    report("all", total)
    return total
