"""The demo camera: the synthetic renderer playing a real, legal game, calibrated the way a
user would calibrate (from a frame of the empty board), for machines without a camera."""

from __future__ import annotations

from collections.abc import Sequence

from calibration.calibrate import calibrate
from calibration.model import Calibration
from engine import Board, Rules, variant
from hardware.pieces import PieceSet, load_piece_set
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
    board = Board(rules)

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
