"""Recognition benchmark: the same figures as ``cupboard vision-eval``, in either look of the
synthetic camera or both (``docs/rendering.md``): per square, whole boards, the reliability
table (how right the readings are per confidence band), readings confidently wrong, the
confusion and the time per frame.

    python bench/vision.py [--style polygon|shaded|both] [--measure-set] [--boards 500]
                           [--sets storer-clear,gobblet,gobblet-jr] [--seed 0] [--hands 0]

``polygon`` is the look the square model was fitted on; ``shaded`` was written apart from it
and is held out.  ``--measure-set`` calibrates as the wizard does, with the user's set measured.
The gain from adapting to a table's own frames is ``python bench/adapt.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.evaluate import evaluate, format_result  # noqa: E402


def main() -> int:
    """Run the evaluation and print the report."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=500)
    ap.add_argument("--sets", default="storer-clear,gobblet,gobblet-jr")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-camera", type=int, default=2)
    ap.add_argument("--hands", type=int, default=0)
    ap.add_argument("--style", default="polygon", choices=("polygon", "shaded", "both"),
                    help="the renderer's look: polygon (what the models were fitted on), shaded (held out) or both")
    ap.add_argument("--measure-set", action="store_true",
                    help="calibrate as the wizard does, with the set measured on a frame of its layout")
    args = ap.parse_args()
    styles = ("polygon", "shaded") if args.style == "both" else (args.style,)
    for style in styles:
        for name in args.sets.split(","):
            print(f"-- {style} look", flush=True)
            print(format_result(evaluate(name, args.boards, args.seed, args.per_camera, args.hands,
                                         measure=args.measure_set, style=style)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
