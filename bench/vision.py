"""Recognition benchmark: the same figures as ``cupboard vision-eval``.

    python bench/vision.py [--boards 500] [--sets storer-clear,gobblet,gobblet-jr] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.evaluate import evaluate, format_result  # noqa: E402


def main() -> int:
    """Run the evaluation and print the report."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=500)
    ap.add_argument("--sets", default="storer-clear,gobblet,gobblet-jr")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-camera", type=int, default=2)
    ap.add_argument("--hands", type=int, default=0)
    ap.add_argument("--style", default="polygon", choices=("polygon", "shaded"),
                    help="the renderer's look: polygon (what the models were fitted on) or shaded (held out)")
    ap.add_argument("--measure-set", action="store_true",
                    help="calibrate as the wizard does, with the set measured on a frame of its layout")
    args = ap.parse_args()
    for name in args.sets.split(","):
        print(format_result(evaluate(name, args.boards, args.seed, args.per_camera, args.hands,
                                            measure=args.measure_set, style=args.style)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
