"""The Cups referee on illegal moves: rendered games in which, every few moves, the player to
move first makes an illegal change, then puts the table back and plays the game's move.

    python bench/cups_illegal.py [--seeds 2000,2001] [--moves 10] [--every 3]
                                 [--layout cups-4|cups-6|both] [--style daylight|lamplight|both]
                                 [--cache DIR]

The games are ``bench/cups_referee.py``'s (``tests.cups_streams.random_moves``, the same
renderer, hand and hold); before moves ``every - 1``, ``2 * every - 1``, ... the mover makes an
illegal change (``tests.cups_streams.misplay_script``, the kinds taken in turn: a sow without the exact
count, then a drop into the opponent's cups; the other kind where that one has no move here).
Each illegal table is counted as:

- named: an ``illegal`` alert naming the rule the change breaks (a sow: "can be sown only with
  exactly" or "sowing cup"; a drop into the opponent's cups: "never into");
- named otherwise: an ``illegal`` alert naming another rule;
- asked: a question (the players dismiss it);
- committed: a legal move committed (taken back by the bench);
- missed: nothing committed, asked or alerted.

Then the table is put back: "restored" counts the tables the referee took as the game's again
(no alert, no move); and the game's move is played, counted as in ``bench/cups_referee.py``
(right alone, asked, or put right by hand: "other").  ``--why`` prints each illegal table's
judgement.  Seeds: only the tuning seeds of the brief (see ``bench/cups_referee.py``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from companion.cups_camera import CupsReferee  # noqa: E402
from engine.cups.rules import CupsRules  # noqa: E402
from hardware.cups.layout import load_layout  # noqa: E402
from hardware.frames import Frame  # noqa: E402
from tests.cups_streams import cached_stream, misplay_script, new_session, over_tables  # noqa: E402

FPS = 10.0
RULE_WORDS = {"sow": ("can be sown only with exactly", "sowing cup"), "theirs": ("never into",)}


@dataclass
class Tally:
    """Figures over many illegal tables (and the moves after them)."""

    tables: int = 0
    named: int = 0
    named_otherwise: int = 0
    asked: int = 0
    committed: int = 0
    missed: int = 0
    restored: int = 0
    moves_right: int = 0
    moves_asked: int = 0
    moves_other: int = 0
    lines: list[str] = field(default_factory=list)

    def add(self, other: "Tally") -> None:
        for name in ("tables", "named", "named_otherwise", "asked", "committed", "missed", "restored",
                     "moves_right", "moves_asked", "moves_other"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.lines += other.lines


def play_game(layout_name: str, style: str, seed: int, moves: int, every: int, why: bool,
              cache: Path | None) -> Tally:
    """One scripted game through the referee; see the module's text."""
    layout = load_layout(layout_name)
    rules = CupsRules(cups=layout.cups_per_row)
    truth, tables, kinds = misplay_script(rules, seed, moves, every)
    kept = cache / f"{layout_name}-{style}-{seed}-{moves}-misplay{every}.pickle" if cache is not None else None
    s = cached_stream(layout, tables, seed, style, kept)
    session = new_session(Path(tempfile.mkdtemp(prefix="cups-illegal-")), rules)
    referee = CupsReferee(session, s.setup)
    tally = Tally()
    index = 0

    def feed(i: int) -> None:
        nonlocal index
        referee.process(Frame(s.frames[i].image, index / FPS, index))
        index += 1

    alerts: list[tuple[str, str]] = []
    session.subscribe(lambda e: alerts.append((e.kind, e.text)) if e.kind in ("illegal", "restored") else None)
    by_step: dict[int, list[int]] = {}
    for i, step in enumerate(s.steps):
        by_step.setdefault(step, []).append(i)
    for i in by_step[0]:
        feed(i)
    n = 0  # the game's moves played so far
    for step in range(1, len(tables)):
        first = by_step[step][0]
        hand = []
        j = first - 1
        while j >= 0 and s.steps[j] == -1:
            hand.insert(0, j)
            j -= 1
        ply = session.board.ply
        seen = len(alerts)
        text = session.board.move_text(truth[n]) if n < len(truth) else ""
        for i in hand + by_step[step]:
            feed(i)
        kind = kinds[step - 1]
        j = referee.last_judgement
        where = f"{layout_name} {style} seed {seed} before move {n + 1}"
        if kind is not None:
            tally.tables += 1
            new = [t for k, t in alerts[seen:] if k == "illegal"]
            if session.board.ply > ply:
                tally.committed += 1
                played = [e for e in session.journal.events if e.kind == "move"][-(session.board.ply - ply)].data["move"]
                tally.lines.append(f"{where}: {kind} committed as {played}")
                while session.board.ply > ply:
                    session.take_back()
            elif referee.pending is not None:
                tally.asked += 1
                tally.lines.append(f"{where}: {kind} asked: {referee.pending.reason}")
                referee.dismiss()
            elif new or (j is not None and j.kind == "illegal"):
                text = new[-1] if new else j.text
                if any(w in text for w in RULE_WORDS[kind]):
                    tally.named += 1
                    if why:
                        tally.lines.append(f"{where}: {kind} named: {text}")
                else:
                    tally.named_otherwise += 1
                    tally.lines.append(f"{where}: {kind} named otherwise: {text}")
            else:
                tally.missed += 1
                tally.lines.append(f"{where}: {kind} missed ({j.kind if j else 'nothing read'})")
            continue
        if step >= 2 and kinds[step - 2] is not None:
            # the table put back
            if session.board.ply == ply and referee.pending is None and (j is None or j.kind != "illegal"):
                tally.restored += 1
            else:
                tally.lines.append(f"{where}: the table put back taken for {j.kind if j else 'nothing'}"
                                   f"{': ' + j.text if j else ''}")
                referee.dismiss()
                while session.board.ply > ply:
                    session.take_back()
                referee.resync()  # the players tell it the table is the game's
                feed(by_step[step][-1])
            continue
        move = truth[n]
        if session.board.ply > ply:
            played = [e for e in session.journal.events if e.kind == "move"][-(session.board.ply - ply)].data["move"]
            if played == text:
                tally.moves_right += 1
            else:
                tally.moves_other += 1
                tally.lines.append(f"{where}: {text} committed as {played}")
                while session.board.ply > ply:
                    session.take_back()
                session.play(move, source="hand")
                feed(by_step[step][-1])
        elif referee.pending is not None and (move,) in referee.pending.candidates:
            tally.moves_asked += 1
            referee.confirm(referee.pending.candidates.index((move,)))
        else:
            tally.moves_other += 1
            tally.lines.append(f"{where}: {text} not committed nor asked "
                               f"({j.kind + ': ' + j.text if j else 'nothing read'})")
            referee.dismiss()
            session.play(move, source="hand")
            feed(by_step[step][-1])
        n += 1
    return tally


def main() -> int:
    """Run the bench and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="2000,2001,2002")
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--every", type=int, default=3, help="an illegal change before every this many moves")
    ap.add_argument("--layout", default="both", choices=("cups-4", "cups-6", "both"))
    ap.add_argument("--style", default="both", choices=("daylight", "lamplight", "both"))
    ap.add_argument("--why", action="store_true", help="print every illegal table's judgement, named ones too")
    ap.add_argument("--cache", type=Path, help="keep each rendered game in this folder (see bench/cups_referee.py)")
    args = ap.parse_args()
    if args.every < 2:
        ap.error("--every must be 2 or more (an illegal change needs a move before it)")
    cv2.setNumThreads(1)
    seeds = [int(x) for x in args.seeds.split(",")]
    total = over_tables(args.layout, args.style, seeds,
                        lambda name, style, seed: play_game(name, style, seed, args.moves, args.every, args.why,
                                                            args.cache),
                        Tally, report)
    for line in total.lines:
        print("  " + line)
    return 0


def report(label: str, t: Tally) -> None:
    """One line of figures."""
    print(f"{label}: {t.tables} illegal tables: {t.named} named with their rule, {t.named_otherwise} named "
          f"otherwise, {t.asked} asked, {t.committed} committed as a move, {t.missed} missed; "
          f"{t.restored} tables put back taken as the game's; the moves after them: {t.moves_right} right "
          f"alone, {t.moves_asked} asked, {t.moves_other} put right by hand")


if __name__ == "__main__":
    raise SystemExit(main())
