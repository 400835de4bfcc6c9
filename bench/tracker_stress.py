"""Stress of the live referee's tracker with scripted games (no rendering): random legal games
fed to the real ``Tracker`` as observations spoiled the ways a camera spoils them, the players
answering the phone with the truth (``tests/tracker_stress.py`` says how).

    python bench/tracker_stress.py [--games 200] [--sets gobblet,gobblet-jr,storer] [--seed 0]
                                   [--plies 12] [--spoils 1] [--quick 0.15] [--verbose]

Prints per set: moves, how each got on the record (committed alone, asked with it among the
candidates, asked without it, false alarm, missed), wrong commits (moves the script did not
make: the worst failure), alerts (all false: every scripted move is legal), games stalled.
The scripts are not rendered, so any seed may be used.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.tracker_stress import GAMES, Run, Tally, random_script  # noqa: E402


def main() -> int:
    """Run the scripts and print the counts."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="scripts per set")
    ap.add_argument("--sets", default=",".join(GAMES), help="comma-separated: " + ", ".join(GAMES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plies", type=int, default=12, help="longest game (games stop at a result)")
    ap.add_argument("--spoils", type=int, default=1, help="camera faults per script")
    ap.add_argument("--quick", type=float, default=0.15, help="chance per ply of two moves under one hand visit")
    ap.add_argument("--verbose", action="store_true", help="print every broken invariant and alert")
    args = ap.parse_args()
    for game in args.sets.split(","):
        if game not in GAMES:
            ap.error(f"unknown set {game!r}: choose from {', '.join(GAMES)}")
        total = Tally(games=0)
        start = time.process_time()
        for i in range(args.games):
            rng = random.Random(f"{args.seed}-{game}-{i}")
            script = random_script(game, rng, args.plies, args.spoils, args.quick)
            run = Run(script)
            tally = run.play()
            if args.verbose:
                for v in run.violations:
                    print(f"  {game} #{i}: {v}   [{' '.join(script.moves)} | {script.spoils} | quick "
                          f"{sorted(script.quick)}]")
            total.add(tally)
        t = total
        print(f"{game}: {t.games} games, {t.moves} moves: alone {t.alone}, asked {t.asked}, asked without "
              f"{t.asked_without}, false alarms {t.false_alarms}, missed {t.missed} | wrong commits {t.wrong}, fooled "
              f"{t.fooled}, "
              f"alerts {t.alerts}, stalled {t.stalled}, doubts answered {t.doubts} "
              f"({time.process_time() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
