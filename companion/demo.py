"""The demo camera: the synthetic renderer playing a real, legal game, calibrated the way a
user would calibrate (from a frame of the empty board), for machines without a camera."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from calibration.calibrate import calibrate
from calibration.model import Calibration
from engine.gobblet import Rules
from engine import variant
from hardware.pieces import PieceSet, load_piece_set
from hardware.frames import Frame, SourceUnavailable
from hardware.synthetic import SyntheticCamera, empty_scene, render_scene

# Short games that show entering, gobbling, a reveal and a win, per game.
DEMO_GAMES: dict[str, tuple[str, list[str]]] = {
    "gobblet": ("gobblet", ["4b2", "4d3", "3a1", "3c2", "3a1-b3", "4d3xc2", "4b2-c3", "4c2-a3",
                            "4d4", "4a3xb3", "4d4-a3", "4b3-d1", "2d3#"]),
    "gobblet-jr": ("gobblet-jr", ["1c1", "2b2", "2c2", "2b2xc1", "2c2-a1", "3a2", "3xc1", "2b3", "1b1#"]),
    "storer-clear": ("storer", ["4d4", "4a2", "3d3", "4a2xd3", "2b4", "3a2", "1d1", "3a2xb4", "4c4",
                                "3b4-d2", "3a4#"]),
}


def script_of(rules: Rules, pieces: PieceSet, moves: Sequence[str]) -> list[tuple]:
    """The renderer's positions (size classes of ``pieces``) after each move of a game."""
    classes = {logical: i for i, logical in enumerate(pieces.logical_sizes_for(rules.sizes)) if logical is not None}
    board = rules.new_game()

    def snapshot() -> tuple:
        return tuple(
            tuple((colour, classes[size]) for colour, size in board.stack(sq)) for sq in range(rules.squares)
        )

    positions = [snapshot()]
    for text in moves:
        board.push(board.parse_move(text))
        positions.append(snapshot())
    return positions


def demo_camera(pieces_name: str = "gobblet", seed: int = 0, loop: bool = True, still_frames: int = 15) -> tuple[SyntheticCamera, Rules]:
    """A synthetic camera playing the set's demo game, and the rules of that game."""
    variant_name, moves = DEMO_GAMES.get(pieces_name, DEMO_GAMES["gobblet"])
    rules = variant(variant_name)
    pieces = load_piece_set(pieces_name)
    camera = SyntheticCamera(
        script=script_of(rules, pieces, moves), seed=seed, pieces=pieces_name,
        still_frames=still_frames, loop=loop,
    )
    return camera, rules


def calibrate_demo(camera: SyntheticCamera) -> Calibration:
    """Calibrate from a rendered frame of the camera's empty board (opens the camera)."""
    camera.open()
    empty = render_scene(empty_scene(camera.base), camera.seed + 1)[0]
    return calibrate([empty], camera.pieces, camera.board)


def cycle_frames(camera: SyntheticCamera) -> int:
    """How many frames one pass of the camera's scripted game takes (it then starts again)."""
    steps = len(camera._script or [])
    return steps * camera.still_frames + max(0, steps - 1) * camera.move_frames


# The demo served by ``cupboard serve`` plays at about a person's pace: each position is held
# this many frames (the camera thread reads at most 10 a second), a hand takes ``MOVE_FRAMES``
# to make a move, and the final position stays up ``END_FRAMES`` before the board is cleared.
DEMO_STILL_FRAMES = 50
DEMO_MOVE_FRAMES = 8
DEMO_END_FRAMES = 80


def demo_game(rules: Rules, seed: int, shortest: int = 9, longest: int = 24) -> list[str]:
    """The move texts of a varied game of ``rules`` that ends in a win after ``shortest`` to
    ``longest`` plies (deterministic for ``seed``).  Both sides play safe moves (no win, no
    win in one left to the opponent) until ``shortest``, then carelessly now and then, and
    take a win when they see one."""
    from engine.gobblet.tactics import winning_moves

    rng = random.Random(seed)
    for _ in range(200):
        board = rules.new_game()
        texts: list[str] = []
        while board.decided is None and board.ply < longest:
            late = board.ply + 1 >= shortest
            wins = winning_moves(board) if late else []
            if wins:
                move = rng.choice(wins)
            else:
                careless = late and rng.random() < 0.5
                choices = []
                for m in board.legal_moves():
                    board.push(m)
                    if board.decided is None and (careless or not winning_moves(board)):
                        choices.append(m)
                    board.pop()
                if not choices:
                    break
                move = rng.choice(choices)
            texts.append(board.move_text(move))
            board.push(move)
        outcome = board.outcome()
        if outcome is not None and outcome.result != "1/2-1/2" and board.ply >= shortest:
            return texts
    raise RuntimeError(f"no demo game of {rules.name} found for seed {seed}")


class DemoCamera(SyntheticCamera):
    """The demo camera of ``cupboard serve``: an endless series of different games (``demo_game``
    with a new seed each time) at a person's pace, the board cleared by hand between games.

    ``new_game_at(index)`` tells the live referee that frame ``index`` is the first frame of a
    new game's empty board.  A still position is rendered once and its picture repeated, so
    the demo costs little CPU while nothing moves."""

    def __init__(self, pieces_name: str, rules: Rules, seed: int = 0, still_frames: int = DEMO_STILL_FRAMES,
                 move_frames: int = DEMO_MOVE_FRAMES, end_frames: int = DEMO_END_FRAMES) -> None:
        super().__init__(script=None, seed=seed, pieces=pieces_name, still_frames=still_frames,
                         move_frames=move_frames, loop=True)
        self.rules = rules
        self.end_frames = end_frames
        self.games_made = 0
        self.starts: dict[int, list[str]] = {}  # first frame of each game -> its moves
        self._base = 0  # frame index of self._timeline[0] (played frames are dropped)
        self._still: tuple[tuple, np.ndarray] | None = None

    def open(self) -> None:
        """Prepare the scene and the first game."""
        pieces = load_piece_set(self._pieces_name)
        self._script = script_of(self.rules, pieces, [])  # the empty board the scene starts from
        super().open()
        self._timeline, self._base, self.starts, self.games_made = [], 0, {}, 0
        self._still = None
        self._add_game()

    def _add_game(self) -> None:
        moves = demo_game(self.rules, self.seed * 7919 + self.games_made)
        script = script_of(self.rules, self.pieces, moves)
        line = self._timeline
        if line:
            last = line[-1][0]
            line += [(last, ())] * self.end_frames  # the win stays on the board a while
            changed = tuple(i for i in range(len(last)) if last[i])
            half = self.move_frames // 2
            line += [(last, changed[:1])] * half + [(script[0], changed[-1:])] * (self.move_frames - half)
        self.starts[self._base + len(line)] = moves
        self.script = script
        line += self._build_timeline()
        self.games_made += 1

    def _entry(self, i: int) -> tuple[tuple, tuple[int, ...]]:
        while i - self._base >= len(self._timeline):
            self._add_game()
        played = i - self._base
        if played > 4000:  # forget what was played long ago
            del self._timeline[:played - 100]
            self._base += played - 100
            self.starts = {k: v for k, v in self.starts.items() if k >= self._base}
        return self._timeline[i - self._base]

    def new_game_at(self, index: int) -> bool:
        """True when frame ``index`` begins a new game (its board is empty)."""
        if index - self._base >= len(self._timeline):
            self._entry(index)
        return index in self.starts

    def read(self) -> Frame:
        """The next frame; a still position's picture is rendered once and repeated."""
        if not self._opened:
            raise SourceUnavailable("demo camera: open() it first")
        pos, hands = self._entry(self._i)
        if not hands and self._still is not None and self._still[0] == pos:
            frame = Frame(image=self._still[1].copy(), timestamp=self._i / self.fps, index=self._i)
            self._i += 1
            return frame
        frame = super().read()
        self._still = (pos, frame.image.copy()) if not hands else None
        return frame


def varied_demo_camera(pieces_name: str = "gobblet-jr", seed: int = 0) -> tuple[DemoCamera, Rules]:
    """The demo camera ``cupboard serve`` uses: varied games of the set's game at a person's pace."""
    if pieces_name in DEMO_GAMES:
        rules = variant(DEMO_GAMES[pieces_name][0])
    else:  # a user's own set (cupboard set new) plays its own game
        rules = variant(load_piece_set(pieces_name).default_game)
    return DemoCamera(pieces_name, rules, seed=seed), rules
