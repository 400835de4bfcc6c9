"""Recognition benchmark: the same figures as ``cupboard vision-eval``, in either look of the
synthetic camera or both (``docs/rendering.md``): per square, whole boards, the reliability
table (how right the readings are per confidence band), readings confidently wrong, the
confusion and the time per frame.

    python bench/vision.py [--style polygon|shaded|both] [--measure-set] [--boards 500]
                           [--sets storer-clear,gobblet,gobblet-jr] [--seed 0] [--hands 0]
                           [--size-errors]
                           [--colour-errors]

``polygon`` is the look the square model was fitted on; ``shaded`` was written apart from it
and is held out.  ``--measure-set`` calibrates as the wizard does, with the user's set measured.
The gain from adapting to a table's own frames is ``python bench/adapt.py``.
``--size-errors`` also lists every top read one size (or more) off, with its size evidence
(``size_errors``): use it on tuning seeds only.

``--colour-errors`` lists every colour or presence misread (a top read the other colour, a top
read empty, an empty square read a top), confident ones starred, with the evidence each had
(``ColourErrors``: the disc's margins, the body ring's vote, the disc's colour against the
board's and the players', change and grain, the lighter outline's and the wall's leads).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.camera_model import height_scale  # noqa: E402
from vision.evaluate import COMMIT, evaluate, format_result, top_label  # noqa: E402
from vision.observation import OCCLUDED  # noqa: E402
from vision.recognise import EMPTY_THRESHOLD  # noqa: E402

SCAN_FROM, SCAN_TO, SCAN_STEP = 0.5, 1.5, 0.04  # radii of the radial scan: shares of the true size's outer radius


def _radial_scan(rec, sq: int, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Round the top the last frame found for ``size`` on ``sq``: the radii (canvas px) from
    ``SCAN_FROM`` to ``SCAN_TO`` of the size's outer radius, and per radius the median step and
    the share of the circle that agrees with it (``Recogniser.radial_steps``)."""
    k = height_scale(rec._last.H, rec.cal.sizes[size].height_mm)
    r_out = rec.cal.pieces.sizes[size].outer_diameter_mm / 2 * k * rec.canvas.ppm
    radii = np.arange(SCAN_FROM, SCAN_TO + 1e-9, SCAN_STEP) * r_out
    med, agree = rec.radial_steps(np.array([sq]), np.array([size]), radii[None, :])
    return radii, med[0], agree[0]


def size_errors(found: list) -> callable:
    """An ``evaluate`` observer that appends to ``found`` one line per top read as another
    size (right colour or not): truth and reading, confidence, every size's ring score and
    edge scale, and the radial scan round the true size's top (``_radial_scan``) with the
    radii, in px at the true size's height, where each size's edge is looked for and where the
    true top's outer rim and flat top lie."""
    def observe(rec, obs, truth) -> None:
        ev = rec.last_evidence
        if ev is None:
            return
        for sq, (r, top) in enumerate(zip(obs.squares, truth.tops)):
            got = r.top
            if top is None or got is None or got[1] == top[1] or truth.occluded[sq]:
                continue
            t = top[1]
            H = rec._last.H
            ppm = rec.canvas.ppm
            k = height_scale(H, rec.cal.sizes[t].height_mm)
            size = rec.cal.pieces.sizes[t]
            looked = [e[-1] * height_scale(H, sc.height_mm) * ppm for e, sc in zip(rec.edges_mm, rec.cal.sizes)]
            radii, med, agree = _radial_scan(rec, sq, t)
            strong = np.argsort(-np.abs(med))
            peaks = []
            for i in strong:
                if all(abs(i - j) > 2 for j in peaks):
                    peaks.append(int(i))
                if len(peaks) == 3:
                    break
            found.append({
                "truth": top_label(top), "read": top_label(got), "conf": r.confidence,
                "ring": np.round(ev.ring[sq].astype(float), 2).tolist(), "sign": ev.sign[sq].tolist(),
                "scales": [round(sc.edge_scale, 3) for sc in rec.cal.sizes],
                "looked_px": np.round(looked, 1).tolist(),
                "outer_px": round(size.outer_diameter_mm / 2 * k * ppm, 1),
                "flat_px": round(size.top_diameter_mm / 2 * k * ppm, 1),
                "peaks": [(round(float(radii[i]), 1), round(float(med[i]), 3), round(float(agree[i]), 2))
                          for i in peaks],
                "ring_unit": EMPTY_THRESHOLD})
    return observe


def format_size_errors(found: list) -> str:
    """``size_errors``' lines, then how often each (truth, reading) pair came."""
    lines = [f"size errors: {len(found)}"]
    for e in found:
        lines.append(f"  {e['truth']}->{e['read']} conf {e['conf']:.2f} ring {e['ring']} scales {e['scales']}")
        lines.append(f"      looked at {e['looked_px']} px; true outer {e['outer_px']} flat {e['flat_px']}; "
                     f"scan peaks (r px, step, share of circle) {e['peaks']}")
    pairs = Counter((e["truth"], e["read"]) for e in found)
    lines.append("  pairs: " + ", ".join(f"{a}->{b} {n}" for (a, b), n in pairs.most_common()))
    return "\n".join(lines)



class ColourErrors:
    """An ``evaluate`` observer that keeps every colour or presence misread with its evidence:
    the colour margin (``sure_colour_of``), the body ring's lead for the light player on a
    solid top (``body_colour_of``) and where its disc was read (offset from the
    square's centre, radius, share of the top's edge), the disc's median colour against the
    board's now and the two measured players' colours under the same light, the change of the
    square's middle since the empty board, how much of the board's grain still shows there
    (``grain_kept``), the lead of a lighter outline (``_lighter_outline``) and, for a solid
    size, of its wall beyond the near edge (``_wall_leads``)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.frame = 0

    def __call__(self, rec, obs, truth) -> None:
        self.frame += 1
        ev = rec.last_evidence
        if ev is None:
            return
        for sq, (r, top, hidden) in enumerate(zip(obs.squares, truth.tops, truth.occluded)):
            if r.state == OCCLUDED or hidden or r.top == top:
                continue
            got = r.top
            if got is not None and top is not None and got[0] == top[0]:
                continue  # a size misread, not a colour or presence one
            s = (got or top)[1]
            colour, margin, (centre, radius, share) = rec._colour_read(sq, s)
            _, sure = rec.sure_colour_of(sq, s)
            px, board_now = rec.top_pixels(sq, s, share)
            disc = np.median(px, axis=0) if len(px) else np.zeros(3)
            light, dark = (np.exp(rec.colour_refs) * board_now).round()
            _, lead = rec._lighter_outline(sq, s)
            body = f"{rec.body_colour_of(sq, s):+.2f}" if rec._solid[s] else "-"
            wall = f"{rec._wall_leads(np.array([sq]), np.array([s]))[1][0, 0]:.2f}" if rec._solid[s] else "-"
            off = np.asarray(centre) - rec.centres_px[sq]
            self.lines.append(
                f" {'*' if r.confidence >= COMMIT else ' '} frame {self.frame:3d} sq {sq:2d}: {top_label(top):>5} read "
                f"{top_label(got):>5} at {r.confidence:.3f}; colour {'LD'[colour]} margin {margin:.2f} sure {sure:.2f} "
                f"body ring {body} "
                f"in r {radius * share:.1f} px at ({off[0]:+.1f},{off[1]:+.1f}); disc {disc.astype(int).tolist()} "
                f"board {board_now.astype(int).tolist()} L {light.astype(int).tolist()} D {dark.astype(int).tolist()}; "
                f"middle changed {ev.centre_change[sq]:.2f}, change in {ev.change_in[sq, s]:.2f}, "
                f"grain {rec.grain_kept(sq) if rec._grained[sq] else float('nan'):.2f}, outline {lead:.2f}, wall {wall}")

    def report(self) -> str:
        """The misreads, one a line (``*``: at or above the commit confidence)."""
        return "\n".join(["colour and presence misreads (* confident), with their evidence:"]
                         + (self.lines or ["  none"]))


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
    ap.add_argument("--size-errors", action="store_true",
                    help="also list every top read as another size, with its size evidence (tuning seeds only)")
    ap.add_argument("--colour-errors", action="store_true",
                    help="list every colour or presence misread with its evidence (colour margin, disc, change, grain)")
    args = ap.parse_args()
    styles = ("polygon", "shaded") if args.style == "both" else (args.style,)
    for style in styles:
        for name in args.sets.split(","):
            print(f"-- {style} look", flush=True)
            found: list = []
            errors = ColourErrors() if args.colour_errors else None
            observers = [o for o in (size_errors(found) if args.size_errors else None, errors) if o is not None]

            def observe(rec, obs, truth) -> None:
                for o in observers:
                    o(rec, obs, truth)

            print(format_result(evaluate(name, args.boards, args.seed, args.per_camera, args.hands,
                                         measure=args.measure_set, style=style,
                                         observer=observe if observers else None)), flush=True)
            if args.size_errors:
                print(format_size_errors(found), flush=True)
            if errors is not None:
                print(errors.report(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
