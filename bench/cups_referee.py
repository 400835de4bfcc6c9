"""The Cups referee on rendered games: moves right, false moves, questions, stalls, the delay
from the hand leaving the table to the commit, and the time per frame on one core.

    python bench/cups_referee.py [--games 4] [--moves 10] [--seed 2000] [--seeds 3000,3001]
                                 [--layout cups-4|cups-6|both] [--style daylight|lamplight|both]
                                 [--margin M] [--why] [--cache DIR]

Each game is a demo-style game of the engine (``tests.cups_streams.random_moves``) drawn by the
Cups renderer: a hand makes each move over 3 frames, each table is held 4 frames (a 10 frames/s
camera), and the frames go through ``CupsReferee.process`` one by one, single-threaded
(``cv2.setNumThreads(1)``).  After each move's frames the bench does what the players would:
a question is answered with the right candidate (counted as asked) or, when the right move is
not among the candidates, tapped in; an alert on a legal move (a false alarm) or a move not
seen (missed) is tapped in; a wrong commit is taken back and the right move tapped in.  So every
move of every game is looked at from the right position.

``--why`` lists, under each move not committed alone (asked about too), every container the
move changes, reads as changed or the hand came over: its count before and after, its reading
and the hand's cover; and the four best-scored after-states with what each leaves unexplained.

Seeds: the referee's ``MARGIN`` and ``FIT_MIN`` were set on games of seeds 0-99 (``TUNED_SEEDS``)
with the daylight look; issue 23's second look (the bowl-shadow slivers, the asks after an
unseen drop, the unreached cup) was worked out on seeds 0-2 and 2000-2002 (the previous
report's) in both looks, and measured on seeds 3000-3004.  The third look (changes only where
beans come, go or land on beans; heaped stocks; the unreached cup only at a run's end) was
worked out on seeds 3000-3004 (now a second look, no longer held out) and measured on seeds
4000-4009, held out: ``--games 10 --moves 10 --seed 4000``.  The fourth look (the white floor
that does not follow the exposure, a capture whose beans went unseen, stocks' ranges) was
worked out on seeds 4000-4004 (looked at twice, so now tuning seeds like 0-999, 2000-2002 and
3000-3004) and measured on seeds 5000-5004, held out: ``--games 5 --moves 10 --seed 5000``,
run once before the work and once after, never used to choose anything.  The fifth and sixth
looks (lamplight false alarms; a faint change weighed by how sure it is) were worked out on
seeds 5000-5009, now tuning seeds too, and the sixth measured on seeds 8000-8004, held out:
``--games 5 --moves 10 --seed 8000``.  The seventh (faint changes at the alarm, a rival one
unseen bean worse, a capture seen, a bare floor misread already) was worked out on 8000-8004
and 5000-5006 (tuning seeds now) and measured once on 9000-9004: ``--games 5 --moves 10
--seed 9000``; those are seen now too.  The eighth (a bead's hole, the quiet cup that rules out
the drop one cup longer) was worked out on 9000-9004 and a few games of 5000-5009, and measured
once on 9200-9204, held out: ``--seeds 9200,9201,9202,9203,9204``.  Those showed wrong commits
on cups-6; the hand's-reach rule narrowed for them (9200-9204 seen now) was measured once on
9300-9302, held out: ``--seeds 9300,9301,9302``.  The ninth look (``cups34``: a rival one unseen
bean worse asked about, no alarm while a legal move fits) was worked out on 9300-9302 and
9200-9204, both seen now, and checked for regressions on a spread of the other tuning seeds
(9000-9004, 8000-8001, 5000-5001, 4000, 3000, 2000 and 0: see docs/cups-camera.md).  The tenth
look (``cups36``: a cup emptied whose beans were never seen, the false alarms of 9201 move 2 and
9203 move 3) was worked out on 9200-9204 and checked on 0, 2000, 3000, 4000, 5000-5001,
8000-8001, 9000-9004, 9200-9204 and 9300-9302 in both looks and layouts; 9400-9402 are tuning
seeds now too.  The eleventh look (``cups38``: a weak colour channel's JPEG noise read as a
change, "nothing happened" asked against a change of a bean's area) was worked out on
9500-9502, the tenth look's held-out seeds (tuning seeds now), and checked on 0, 2000, 3000,
4000, 5000-5001, 8000-8001, 9000-9004, 9200-9204, 9300-9302 and 9400-9402 in both looks and
layouts.  Illegal moves are measured by ``bench/cups_illegal.py`` (on 2000-2002 and
3000-3002).  The held-out seeds are the lead's (9600 on).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from companion.cups_camera import (  # noqa: E402
    MARGIN, CupsReferee, after_state, container_names, table_state, unexplained)
from engine.cups.rules import CupsRules  # noqa: E402
from hardware.cups.layout import load_layout  # noqa: E402
from hardware.frames import Frame  # noqa: E402
from tests.cups_streams import cached_stream, game_tables, new_session, over_tables, random_moves  # noqa: E402

TUNED_SEEDS = range(0, 100)
FPS = 10.0  # the rendered camera's frame rate


@dataclass
class Tally:
    """Figures over many moves."""

    moves: int = 0
    right: int = 0  # committed alone, and right
    false: int = 0  # committed alone, and wrong
    asked: int = 0  # a question with the right move among the candidates
    asked_wrong: int = 0  # a question without it
    false_alarm: int = 0  # a legal move taken for an illegal change
    missed: int = 0  # nothing committed, nothing asked
    delays: list[int] = field(default_factory=list)  # frames from the hand leaving to the commit
    ms: list[float] = field(default_factory=list)  # every frame
    judge_ms: list[float] = field(default_factory=list)  # frames read in full
    wrong: list[str] = field(default_factory=list)

    def add(self, other: "Tally") -> None:
        for name in ("moves", "right", "false", "asked", "asked_wrong", "false_alarm", "missed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.delays += other.delays
        self.ms += other.ms
        self.judge_ms += other.judge_ms
        self.wrong += other.wrong


def play_game(layout_name: str, style: str, seed: int, moves: int, margin: float, why: bool = False,
              cache: Path | None = None) -> Tally:
    """One rendered game through the referee; see the module's text for what is counted.  With
    ``cache``, the rendered game is kept there (pickled) and taken from there when it is."""
    layout = load_layout(layout_name)
    rules = CupsRules(cups=layout.cups_per_row)
    truth = random_moves(rules, seed, moves)
    kept = cache / f"{layout_name}-{style}-{seed}-{moves}.pickle" if cache is not None else None
    s = cached_stream(layout, game_tables(rules, truth), seed, style, kept)
    session = new_session(Path(tempfile.mkdtemp(prefix="cups-bench-")), rules)
    referee = CupsReferee(session, s.setup, margin=margin)
    tally = Tally()
    index = 0

    def feed(frame: Frame) -> None:
        nonlocal index
        t = time.perf_counter()
        before = len(referee.judged_frames)
        referee.process(Frame(frame.image, index / FPS, index))
        ms = 1000 * (time.perf_counter() - t)
        tally.ms.append(ms)
        if len(referee.judged_frames) > before:
            tally.judge_ms.append(ms)
        index += 1

    by_step: dict[int, list[int]] = {}
    for i, step in enumerate(s.steps):
        by_step.setdefault(step, []).append(i)
    # the start: its still frames, then each move's hand frames and still frames
    for i in by_step[0]:
        feed(s.frames[i])
    hands = [i for i, step in enumerate(s.steps) if step == -1]
    hand_runs: list[list[int]] = []
    for i in hands:
        if hand_runs and hand_runs[-1][-1] == i - 1:
            hand_runs[-1].append(i)
        else:
            hand_runs.append([i])
    for n, move in enumerate(truth, start=1):
        board = session.board
        text = board.move_text(move)
        ply = board.ply
        for i in hand_runs[n - 1]:
            feed(s.frames[i])
        left = index  # the first frame without the hand
        committed_at = None
        for i in by_step[n]:
            feed(s.frames[i])
            if committed_at is None and session.board.ply > ply:
                committed_at = index - 1
        tally.moves += 1
        judgement = referee.last_judgement
        if session.board.ply > ply:
            played = [e for e in session.journal.events if e.kind == "move"][-(session.board.ply - ply):]
            if played[0].data["move"] == text:
                tally.right += 1
                tally.delays.append(committed_at - left)
                continue
            tally.false += 1
            tally.wrong.append(f"{layout_name} {style} seed {seed} move {n}: {text} committed as "
                               f"{played[0].data['move']}")
            while session.board.ply > ply:
                session.take_back()
        elif referee.pending is not None:
            candidates = [c[0] for c in referee.pending.candidates]
            if move in candidates:
                tally.asked += 1
                if why:
                    tally.wrong.append(f"{layout_name} {style} seed {seed} move {n}: {text} asked among "
                                       f"{[board.move_text(c) for c in candidates]}")
                    tally.wrong += readings(referee, board, move)
                referee.confirm(candidates.index(move))
                continue
            tally.asked_wrong += 1
            tally.wrong.append(f"{layout_name} {style} seed {seed} move {n}: {text} asked among "
                               f"{[board.move_text(c) for c in candidates]}")
        elif judgement is not None and judgement.kind == "illegal":
            tally.false_alarm += 1
            tally.wrong.append(f"{layout_name} {style} seed {seed} move {n}: {text} taken for an illegal change: "
                               f"{judgement.text}")
        else:
            tally.missed += 1
            tally.wrong.append(f"{layout_name} {style} seed {seed} move {n}: {text} not seen "
                               f"({judgement.kind if judgement else 'nothing read'})")
        if why:
            tally.wrong += readings(referee, board, move)
        referee.dismiss()
        session.play(move, source="hand")  # the players tap it in; the referee reads the table afresh
        feed(s.frames[by_step[n][-1]])
    return tally


def readings(referee: CupsReferee, board, move) -> list[str]:
    """For ``--why``: the last read's reading of every container the move changes, that reads
    as changed or that the hand came over, with the hand's cover."""
    if referee.last_reading is None:
        return []
    b = table_state(board).as_counts()
    a = after_state(board, move).as_counts()
    names = container_names(board.rules.cups)
    out = []
    judgement = referee.last_judgement
    if judgement is not None and judgement.explanation is not None:
        moves = board.legal_moves()
        before = table_state(board)
        top = []
        for c in judgement.explanation.scores[:4]:
            name = "nothing" if c.index == 0 else board.move_text(moves[c.index - 1])
            top.append(f"{name} {c.score:.2f} (unexplained {unexplained(before, c.state, referee.last_reading):.2f})")
        out.append("      scores: " + ", ".join(top))
    for i, r in enumerate(referee.last_reading.containers):
        if r.changed or a[i] != b[i] or referee.last_cover.get(i, 0.0) >= 0.05:
            out.append(f"      {names[i]}: {b[i]} -> {a[i]}; read {'changed' if r.changed else 'unchanged'}"
                       f"{'' if r.change is None else f' ({r.change:.2f} of a bean)'}, "
                       f"{r.count_estimate} ({r.count_low}-{r.count_high}) conf {r.confidence:.2f}"
                       f"{'' if r.stir is None else f', stirred {r.stir:.2f} of a bean'}"
                       f"{'' if r.seen is None else f', floor seen {r.seen:.2f}'}"
                       f", hand cover {referee.last_cover.get(i, 0.0):.2f}")
    return out


def main() -> int:
    """Run the bench and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--seed", type=int, default=2000)
    ap.add_argument("--layout", default="both", choices=("cups-4", "cups-6", "both"))
    ap.add_argument("--style", default="both", choices=("daylight", "lamplight", "both"))
    ap.add_argument("--margin", type=float, default=MARGIN)
    ap.add_argument("--why", action="store_true", help="under each move not committed alone, the readings "
                    "of the containers that changed or were read changed")
    ap.add_argument("--seeds", help="a list of seeds (a,b,c) instead of --seed/--games")
    ap.add_argument("--cache", type=Path, help="keep each rendered game in this folder and take it from "
                    "there next time (rendering is most of the bench's time; a game takes 100-200 MB)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    seeds = ([int(x) for x in args.seeds.split(",")] if args.seeds
             else list(range(args.seed, args.seed + args.games)))
    if any(s in TUNED_SEEDS for s in seeds):
        print(f"note: seeds {seeds} are among the seeds the referee was tuned on ({TUNED_SEEDS})")
    total = over_tables(args.layout, args.style, seeds,
                        lambda name, style, seed: play_game(name, style, seed, args.moves, args.margin, args.why,
                                                            args.cache),
                        Tally, report)
    for line in total.wrong:
        print("  " + line)
    return 0


def report(label: str, t: Tally) -> None:
    """One line of figures."""
    delay = statistics.median(t.delays) if t.delays else float("nan")
    worst = max(t.delays) if t.delays else float("nan")
    judge = statistics.median(t.judge_ms) if t.judge_ms else 0.0
    mean = statistics.fmean(t.ms) if t.ms else 0.0
    print(f"{label}: {t.moves} moves: {t.right} right alone ({t.right / max(t.moves, 1):.1%}), {t.false} false, "
          f"{t.asked} asked (right among the candidates), {t.asked_wrong} asked without the right one, "
          f"{t.false_alarm} false alarms, {t.missed} missed; delay from the hand leaving to the commit "
          f"median {delay:.0f} frames, worst {worst:.0f} ({delay / FPS + judge / 1000:.2f} s, worst "
          f"{worst / FPS + judge / 1000:.2f} s at {FPS:.0f} frames/s); per frame median "
          f"{statistics.median(t.ms) if t.ms else 0:.2f} ms, mean {mean:.1f} ms "
          f"({1000 / mean if mean else 0:.0f} frames/s), a full read {judge:.0f} ms (median)")


if __name__ == "__main__":
    raise SystemExit(main())
