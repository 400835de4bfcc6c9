"""Every reading of a tuning seed with the evidence it had, kept to tell confidently wrong
readings from confidently right ones (issue 19: confidently wrong readings, at the referee's
commit of 0.8 or more, at most 1 in 2,000 squares).

    python bench/confident.py --seed 137 [--sets storer-clear,gobblet,gobblet-jr] [--boards 40]
                              [--out /tmp/conf_137.pkl]

Shaded look, the set measured (as every figure of issue 19).  Prints ``format_result`` for each
set and writes one record per square read as a top or holding one (not hidden): the truth and
reading, the confidence, the square model's and the square net's probabilities (the net as a
second reader, whether or not the recogniser uses it), the colour evidence (``_colour_read``'s
margin, ``sure_colour_of``'s, the body ring), the size evidence (ring scores, ``size_bound``,
the clear rims) and the lighter outline's lead.  Tuning seeds only.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.evaluate import evaluate, format_result, top_label  # noqa: E402
from vision.observation import OCCLUDED  # noqa: E402
from vision.square_model import alternatives, size_bound  # noqa: E402
from vision.square_net import load_square_net  # noqa: E402


def recorder(name: str, out: list) -> callable:
    """An ``evaluate`` observer appending one dict per top read or held to ``out``."""
    net = load_square_net()
    state = {"frame": 0}

    def observe(rec, obs, truth) -> None:
        state["frame"] += 1
        ev = rec.last_evidence
        if ev is None:
            return
        model = rec.model.probabilities(alternatives(ev))
        net_p = net.read(rec) if rec.square_net is None else None
        bound = size_bound(ev.ring, rec._solid)
        for sq, (r, top, hidden) in enumerate(zip(obs.squares, truth.tops, truth.occluded)):
            if r.state == OCCLUDED or hidden or (r.top is None and top is None):
                continue
            got = r.top
            s = (got or top)[1]
            colour, margin, (centre, radius, share) = rec._colour_read(sq, s)
            _, sure = rec.sure_colour_of(sq, s)
            _, lead = rec._lighter_outline(sq, s)
            out.append({
                "set": name, "frame": state["frame"], "sq": sq, "truth": top_label(top), "read": top_label(got),
                "conf": float(r.confidence), "solid": bool(rec._solid[s]), "s": s,
                "model": model[sq].astype(float), "net": None if net_p is None else net_p[sq].astype(float),
                "colour": colour, "margin": float(margin), "sure": float(sure),
                "body": float(rec.body_colour_of(sq, s)) if rec._solid[s] else np.nan,
                "ring": ev.ring[sq].astype(float), "bound": bound[sq].astype(float),
                "rim": rec._last.rim_score[sq].astype(float), "outline": float(lead),
                "centre_change": float(ev.centre_change[sq]),
                "larger_rim": bool(rec._larger_rim(sq, s)) if not rec._solid[s] else False,
            })
    return observe


def main() -> int:
    """Run the sets, print their results, write the records."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--boards", type=int, default=40)
    ap.add_argument("--sets", default="storer-clear,gobblet,gobblet-jr")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    records: list = []
    for name in args.sets.split(","):
        print(f"-- shaded look, seed {args.seed}", flush=True)
        res = evaluate(name, args.boards, args.seed, measure=True, style="shaded",
                       observer=recorder(name, records))
        print(format_result(res), flush=True)
    out = args.out or f"/tmp/conf_{args.seed}.pkl"
    with open(out, "wb") as fh:
        pickle.dump(records, fh)
    print(f"{len(records)} records -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
