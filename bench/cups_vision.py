"""Cups vision benchmark, on seeds held out from tuning: per-container change accuracy, bean
counts (exact, within the reported range), hands flagged, the candidate scorer's pick among
the legal after-states of scripted games, and the time to read one frame.

    python bench/cups_vision.py [--tables 40] [--games 4] [--moves 8] [--seed 1000]
                                [--style daylight|lamplight|both] [--layout cups-4|cups-6|both]

The reader's thresholds were tuned on ``daylight`` tables with seeds 0-99 (``TUNED_SEEDS``);
the default seeds here start at 1000 and ``lamplight`` was never looked at while tuning.
The legal moves come from a small local move function (the engine is written elsewhere).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.cups.layout import CupsLayout, load_layout  # noqa: E402
from hardware.cups.state import TableState, start_state  # noqa: E402
from hardware.render.cups import arrange, random_cups_scene, render_cups, script_frames  # noqa: E402
from vision.cups.calibration import from_pose  # noqa: E402
from vision.cups.explain import explain_readings  # noqa: E402
from vision.cups.reader import CupsReader  # noqa: E402

TUNED_SEEDS = range(0, 100)
# an example of the referee's rule (the referee, not this bench, will own it): commit the best
# candidate only when it leads the next by this much, else ask which move it was
COMMIT_MARGIN = 1.0


def after_states(s: TableState, south: bool) -> list[TableState]:
    """Every legal after-state of the player to move (RULES.md, cups): drops of 1..X from the
    stock with the capture, and exact sows; the state itself for a forced pass."""
    x = s.cups_per_row
    mine, theirs = (list(s.south), list(s.north)) if south else (list(s.north), list(s.south))
    me = 0 if south else 1
    out = []
    for k in range(1, min(x, s.stocks[me]) + 1):
        m, t, bowls, stocks = mine[:], theirs[:], list(s.bowls), list(s.stocks)
        last_empty = m[k - 1] == 0
        for i in range(k):
            m[i] += 1
        stocks[me] -= k
        if last_empty:
            bowls[me] += t[x - k]
            t[x - k] = 0
        out.append((m, t, bowls, stocks))
    for i in range(x):
        if mine[i] and mine[i] == x - i:
            m, t, bowls, stocks = mine[:], theirs[:], list(s.bowls), list(s.stocks)
            m[i] = 0
            for j in range(i + 1, x):
                m[j] += 1
            bowls[me] += 1
            out.append((m, t, bowls, stocks))
    states = [TableState(tuple(m) if south else tuple(t), tuple(t) if south else tuple(m), tuple(b), tuple(st))
              for m, t, b, st in out]
    return states or [s]


def random_game(x: int, moves: int, rng: np.random.Generator) -> list[tuple[TableState, bool]]:
    """A game of random legal moves: (state, whether south moves next) from the start."""
    s, south = start_state(x), True
    out = [(s, south)]
    for _ in range(moves):
        s = after_states(s, south)[int(rng.integers(len(after_states(s, south))))]
        south = not south
        out.append((s, south))
    return out


def random_table(x: int, rng: np.random.Generator) -> TableState:
    """Counts like a game's middle: cups 0-8, bowls 0-20, stocks 0-40."""
    return TableState.from_counts([int(v) for v in rng.integers(0, 9, 2 * x)] + [int(v) for v in rng.integers(0, 21, 2)]
                                  + [int(v) for v in rng.integers(0, 41, 2)])


def moved_table(s: TableState, rng: np.random.Generator) -> TableState:
    """``s`` with a few containers changed: beans added, taken or a cup emptied."""
    c = list(s.as_counts())
    for i in rng.choice(len(c), size=int(rng.integers(1, 4)), replace=False):
        c[i] = 0 if rng.random() < 0.3 else max(0, c[i] + int(rng.choice([-3, -2, -1, 1, 2, 3])))
    return TableState.from_counts(c)


def single_frames(layout: CupsLayout, style: str, seeds: range) -> dict:
    """Change, count and timing figures over one table per seed (before and after frames)."""
    changed_ok = total = exact = within = 0
    times = []
    for seed in seeds:
        rng = np.random.default_rng([seed, 3])
        before = random_table(layout.cups_per_row, rng)
        after = moved_table(before, rng)
        scene = random_cups_scene(layout, before, seed, style)
        empty_img, _ = render_cups(replace(scene, beans=arrange(layout, TableState.from_counts([0] * len(before.as_counts())),
                                                                 scene.look, scene.offsets, rng)), seed * 10 + 1)
        before_img, _ = render_cups(scene, seed * 10 + 2)
        scene2 = replace(scene, beans=arrange(layout, after, scene.look, scene.offsets, rng, scene.beans))
        after_img, _ = render_cups(scene2, seed * 10 + 3)
        reader = CupsReader(layout, from_pose(scene.intrinsics, scene.pose, scene.look.beans.size_mm), empty_img)
        reader.set_stable(before_img)
        t = time.perf_counter()
        reading = reader.read(after_img)
        times.append(time.perf_counter() - t)
        for b, a, r in zip(before.as_counts(), after.as_counts(), reading.containers):
            total += 1
            changed_ok += r.changed == (a != b)
            exact += r.count_estimate == a
            within += r.count_low <= a <= r.count_high
    return {"containers": total, "change": changed_ok / total, "exact": exact / total, "within": within / total,
            "ms": 1000 * statistics.median(times)}


def games(layout: CupsLayout, style: str, seeds: range, moves: int) -> dict:
    """Scripted games: candidate picks at each stable frame, hands flagged on hand frames."""
    picks = right = hand_frames = hands_seen = still_frames = false_hands = committed_wrong = asked = 0
    margins = []
    for seed in seeds:
        rng = np.random.default_rng([seed, 9])
        game = random_game(layout.cups_per_row, moves, rng)
        states = [start_state(layout.cups_per_row, 0)] + [s for s, _ in game]
        frames = script_frames(layout, states, seed, style, still_frames=1, move_frames=2)
        scene = random_cups_scene(layout, states[0], seed, style)
        reader = CupsReader(layout, from_pose(scene.intrinsics, scene.pose, scene.look.beans.size_mm), frames[0].image)
        last = {f.step: f for f in frames if not f.truth.hand}
        for f in frames:
            flagged = reader.read(f.image).hand if f.truth.hand else None
            if f.truth.hand:
                hand_frames += 1
                hands_seen += bool(flagged)
        reader.set_stable(last[1].image)
        for step in range(2, len(states)):
            before, south = game[step - 2]
            reading = reader.read(last[step].image)
            still_frames += 1
            false_hands += reading.hand
            cands = after_states(before, south)
            if len(cands) > 1:
                ex = explain_readings(before, cands, reading)
                picks += 1
                right += ex.best == states[step]
                margins.append(ex.margin)
                if ex.margin < COMMIT_MARGIN:
                    asked += 1
                else:
                    committed_wrong += ex.best != states[step]
            reader.set_stable(last[step].image)
    return {"picks": picks, "pick": right / max(picks, 1), "margin_median": statistics.median(margins) if margins else 0,
            "hands": hands_seen / max(hand_frames, 1), "false_hands": false_hands / max(still_frames, 1),
            "asked": asked, "committed_wrong": committed_wrong}


def main() -> int:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=40)
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--moves", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--style", default="both", choices=("daylight", "lamplight", "both"))
    ap.add_argument("--layout", default="cups-4", choices=("cups-4", "cups-6", "both"))
    args = ap.parse_args()
    if args.seed in TUNED_SEEDS:
        print(f"note: seed {args.seed} is among the seeds the reader was tuned on ({TUNED_SEEDS})")
    styles = ("daylight", "lamplight") if args.style == "both" else (args.style,)
    layouts = ("cups-4", "cups-6") if args.layout == "both" else (args.layout,)
    for name in layouts:
        layout = load_layout(name)
        for style in styles:
            f = single_frames(layout, style, range(args.seed, args.seed + args.tables))
            print(f"{name} {style}: {f['containers']} containers on {args.tables} tables: change right "
                  f"{f['change']:.1%}, count exact {f['exact']:.1%}, within range {f['within']:.1%}, "
                  f"{f['ms']:.0f} ms per frame (median)")
            if args.games:
                g = games(layout, style, range(args.seed, args.seed + args.games), args.moves)
                print(f"{name} {style}: {g['picks']} moves in {args.games} games: candidate picked right "
                      f"{g['pick']:.1%} (median margin {g['margin_median']:.2f}; with a commit margin of "
                      f"{COMMIT_MARGIN}: {g['asked']} asked, {g['committed_wrong']} committed wrong); hand frames flagged "
                      f"{g['hands']:.1%}, still frames wrongly flagged {g['false_hands']:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
