"""SVG drawings (engine.gobblet.svg): valid standalone SVG whose pieces match the board."""

import random
import xml.etree.ElementTree as ET

import pytest

from companion.cli import main
from engine.gobblet import Board, Move
from engine import variant
from engine.gobblet.board import parse_position
from engine.gobblet.rules import VARIANTS
from engine.gobblet.svg import board_svg

NS = {"svg": "http://www.w3.org/2000/svg"}
TOKENS = [*VARIANTS, "gobblet[board=5,line=4]", "gobblet-jr[per=3,sizes=5]"]


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == cls]


def played(token: str, seed: int, plies: int) -> Board:
    rng = random.Random(seed)
    board = Board(variant(token))
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


@pytest.mark.parametrize("token", TOKENS)
def test_pieces_drawn_match_the_board(token):
    for seed in range(5):
        board = played(token, seed, 4 + 6 * seed)
        root = parse(board_svg(board))
        drawn = {
            (g.get("data-square"), g.get("data-colour"), int(g.get("data-size")))
            for g in groups(root, "piece")
        }
        expected = set()
        for sq in range(board.rules.squares):
            top = board.top(sq)
            if top:
                expected.add((board.geo.names[sq], ("white", "black")[top[0]], top[1]))
        assert drawn == expected
        assert groups(root, "hidden") == []
        for colour, name in ((0, "white"), (1, "black")):
            sizes = [
                int(g.get("data-size"))
                for g in groups(root, "reserve-piece")
                if g.get("data-reserve") == name
            ]
            assert sizes == board.reserve_tops(colour)
        # the size is written inside each piece
        for g in groups(root, "piece"):
            assert g.find("svg:text", NS).text == g.get("data-size")


@pytest.mark.parametrize("token", TOKENS)
def test_hidden_pieces_are_drawn_when_asked(token):
    board = played(token, 3, 40)
    root = parse(board_svg(board, hidden=True))
    drawn = sorted(
        (
            g.get("data-square"),
            int(g.get("data-depth")),
            g.get("data-colour"),
            int(g.get("data-size")),
        )
        for g in groups(root, "hidden")
    )
    expected = sorted(
        (board.geo.names[sq], depth, ("white", "black")[c], s)
        for sq in range(board.rules.squares)
        for depth, (c, s) in enumerate(board.stack(sq)[:-1])
    )
    assert drawn == expected
    if board.stacked:
        nested = [
            c
            for c in root.iter("{http://www.w3.org/2000/svg}circle")
            if c.get("class") == "reserve-hidden"
        ]
        assert len(nested) == sum(h - 1 for c in (0, 1) for h in board.reserve_tops(c))


def test_some_game_has_hidden_pieces():
    board = played("gobblet", 3, 40)
    assert any(len(board.stack(sq)) > 1 for sq in range(16))  # so the test above checks something


def test_pieces_grow_with_size():
    board = parse_position(
        "goblet-5 W1,W2,W3,W4,W5/.,.,.,.,./.,.,.,.,./.,.,.,.,./B5,B4,B3,B2,B1 w 5,5,5,5 5,5,5,5 3"
    )
    root = parse(board_svg(board))
    radius = {}
    for g in groups(root, "piece"):
        radius[(g.get("data-colour"), int(g.get("data-size")))] = float(
            g.find("svg:circle", NS).get("r")
        )
    for colour in ("white", "black"):
        sizes = [radius[(colour, s)] for s in range(1, 6)]
        assert sizes == sorted(sizes) and len(set(sizes)) == 5


def test_flip_turns_the_board():
    board = played("gobblet", 1, 6)
    plain, flipped = parse(board_svg(board)), parse(board_svg(board, flip=True))

    def where(root, name):
        (rect,) = [
            r
            for r in root.iter("{http://www.w3.org/2000/svg}rect")
            if r.get("class") == "square" and r.get("data-square") == name
        ]
        return float(rect.get("x")), float(rect.get("y"))

    assert where(plain, "a1") == where(flipped, "d4")
    assert where(plain, "a1")[1] > where(plain, "a4")[1]  # rank 1 at the bottom for White
    assert where(flipped, "a1")[1] < where(flipped, "a4")[1]


def test_last_move_highlight_and_lifted_piece():
    board = Board(variant("gobblet"))
    for text in ["4b2", "4c3", "4b2-a1"]:
        board.push(board.parse_move(text))
    last = board.move_stack[-1]
    root = parse(board_svg(board, last_move=last, highlight=["d4", 5], lifted="c3"))
    rects = list(root.iter("{http://www.w3.org/2000/svg}rect"))
    assert sorted(r.get("data-square") for r in rects if r.get("class") == "last-move") == [
        "a1",
        "b2",
    ]
    assert sorted(r.get("data-square") for r in rects if r.get("class") == "highlight") == [
        "b2",
        "d4",
    ]
    assert groups(root, "arrow")
    targets = sorted(
        c.get("data-square")
        for c in root.iter("{http://www.w3.org/2000/svg}circle")
        if c.get("class") == "target"
    )
    assert targets == sorted(
        board.geo.names[m.to] for m in board.touch(board.geo.square("c3")).moves
    )
    assert len(targets) == 14
    entry = parse(board_svg(board, last_move=Move(4, 0)))
    assert not groups(entry, "arrow")


def test_status_says_whose_move_or_how_it_ended():
    board = Board(variant("gobblet-jr"))
    status = parse(board_svg(board)).find("svg:text[@class='status']", NS)
    assert status.text == "White to move" and status.get("data-state") == "playing"
    for text in ["3a1", "3c3", "2a2", "3c3-b3", "1a3"]:
        board.push(board.parse_move(text))
    root = parse(board_svg(board))
    status = root.find("svg:text[@class='status']", NS)
    assert status.text == "White wins with the line a1-a2-a3" and status.get("data-state") == "over"
    assert root.find("svg:line[@class='win-line']", NS) is not None


def test_output_is_standalone_and_deterministic():
    board = played("goblet-5", 2, 30)
    svg = board_svg(board, hidden=True, size_px=500)
    assert svg == board_svg(board.copy(), hidden=True, size_px=500)
    root = parse(svg)
    assert root.get("width") == "500"
    assert "href" not in svg and "<script" not in svg and "url(" not in svg


def test_bad_squares_are_value_errors():
    board = Board(variant("gobblet"))
    with pytest.raises(ValueError, match="unknown square 'e5'"):
        board_svg(board, highlight=["e5"])
    with pytest.raises(ValueError, match="square 16 is not on the board"):
        board_svg(board, lifted=16)


def test_cli_show_writes_the_svg(tmp_path, capsys):
    path = tmp_path / "pos.svg"
    board = played("gobblet", 4, 12)
    assert main(["show", "--position", board.text(), "--svg", str(path), "--hidden"]) == 0
    root = parse(path.read_text(encoding="utf-8"))
    assert len(groups(root, "piece")) == sum(1 for sq in range(16) if board.top(sq))
    assert f"wrote {path}" in capsys.readouterr().out
