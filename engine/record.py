"""Game records: a PGN-like plain-text format for whole games (see ``docs/formats.md``).

A file holds any number of games.  Each game is a block of tags, one per line, then its moves
in move text (``engine.gobblet.notation``) with move numbers, comments in braces after a move, and a
result token that ends the game::

    [Format "cupboard-record 1"]
    [Variant "gobblet"]
    [White "Ann"]
    [Black "Bob"]
    [Result "1-0"]
    [Termination "line"]

    1. 4c3 {[%time 12.4] [%conf 0.98]} 4b2
    2. 3d4 {[%hint 4a1] Referee: nice} 4xd4
    ...
    1-0

Reading checks the structure only (tags, comments, tokens, the result); ``GameRecord.replay``
checks the meaning (every move legal, the ending as recorded).  Both raise ``RecordError``,
whose message names the source and the line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from typing import Any

from .families import FAMILIES, family_of, parse_position, variant
from .files import write_atomic
from .game import AGREEMENT, RESIGNATION, TIME_FORFEIT, Game, GameRules, IllegalMove, Outcome

FORMAT = "cupboard-record 1"
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
UNFINISHED = "unfinished"
TOUCH_MOVE = "touch-move"  # a family whose games have ``touch``/``forfeit_touch`` (Gobblet)

_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_ANNOTATION_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
_NUMBER = re.compile(r"(\d+)(\.\.\.|\.)(.*)\Z")
_SHAPES: dict[str, re.Pattern[str]] = {}


def _move_shape(token: str) -> re.Pattern[str] | None:
    """The shape of a move text in games of the variant ``token`` (the family's
    ``move_shape``); whether the move is legal is for ``replay``.  None for an unknown variant."""
    try:
        fam = family_of(token)
    except ValueError:
        return None
    if fam.name not in _SHAPES:
        _SHAPES[fam.name] = re.compile(f"(?:{fam.move_shape})\\Z")
    return _SHAPES[fam.name]


def terminations(token: str) -> tuple[str, ...]:
    """The Termination words a game of the variant ``token`` may carry: its family's reasons
    and ``unfinished`` (every family's reasons when the variant is unknown)."""
    try:
        reasons = family_of(token).reasons
    except ValueError:
        reasons = tuple(dict.fromkeys(r for fam in FAMILIES.values() for r in fam.reasons))
    return (*reasons, UNFINISHED)
_WINNER_OF_RESULT = {"1-0": 0, "0-1": 1}


class RecordError(ValueError):
    """A record that cannot be read or replayed; the message names the source and line."""

    def __init__(self, message: str, source: str = "", line: int = 0) -> None:
        self.source = source
        self.line = line
        self.problem = message
        super().__init__(f"{_where(source, line)}: {message}" if source or line else message)


def _unprefixed(message: str, text: str) -> str:
    """The engine's reason without the move text it starts with (the record names the move)."""
    for prefix in (f"{text} is illegal: ", f"{text}: ", f"{text!r}: "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


def _where(source: str, line: int) -> str:
    name = source or "<record>"
    return f"{name} line {line}" if line else name


def _one_line(text: str) -> str:
    """Tag values live on one line: other whitespace (newlines, tabs) becomes a space."""
    return "".join(" " if c.isspace() else c for c in str(text))


def _collapse(text: str) -> str:
    """Comments may be wrapped: every run of whitespace counts as one space."""
    return " ".join(str(text).split())


@dataclass
class RecordedMove:
    """One move of a record: its move text, ``[%key value]`` annotations and free comment.

    ``line`` (where the move stands in its file) and ``number`` (the move number written before
    it, e.g. ``"7."`` or ``"7..."``) are for error messages and checks; they do not take part in
    comparisons.
    """

    text: str
    annotations: dict[str, str] = field(default_factory=dict)
    comment: str = ""
    line: int = field(default=0, compare=False, repr=False)
    number: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.text = str(self.text).strip()
        if not self.text or any(c.isspace() or c in "{}[]" for c in self.text):
            raise RecordError(f"{self.text!r} cannot be written as a move")
        notes = {}
        for key, value in dict(self.annotations).items():
            if not _ANNOTATION_KEY.match(str(key)):
                raise RecordError(
                    f"annotation key {key!r} must be a letter then letters, digits, '_' or '-'"
                )
            notes[str(key)] = _collapse(value)
        self.annotations = notes
        self.comment = _collapse(self.comment)


@dataclass
class GameRecord:
    """A game: ordered tags, the moves in order, and the result (``1-0``, ``0-1``, ``1/2-1/2``
    or ``*``).  ``tags["Result"]`` always equals ``result``.

    ``source`` and the line numbers say where the game was read from, for error messages; they
    do not take part in comparisons.
    """

    tags: dict[str, str]
    moves: list[RecordedMove] = field(default_factory=list)
    result: str = "*"
    source: str = field(default="", compare=False, repr=False)
    line: int = field(default=0, compare=False, repr=False)
    end_line: int = field(default=0, compare=False, repr=False)
    tag_lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise RecordError(f"result {self.result!r} is not one of {', '.join(RESULTS)}")
        tags: dict[str, str] = {}
        for name, value in dict(self.tags).items():
            if not _TAG_NAME.match(str(name)):
                raise RecordError(f"tag name {name!r} must be a letter then letters, digits or '_'")
            if name == "Format":
                continue  # the writer always writes the current format; it is not game data
            tags[str(name)] = _one_line(value)
        if tags.setdefault("Result", self.result) != self.result:
            raise RecordError(
                f"the Result tag says {tags['Result']} but the result is {self.result}",
                self.source,
                self.tag_lines.get("Result", self.line),
            )
        self.tags = tags
        self.moves = list(self.moves)

    def _error(self, message: str, line: int | None = None) -> RecordError:
        return RecordError(message, self.source, self.line if line is None else line)

    # ------------------------------------------------------------------ meaning
    @property
    def rules(self) -> GameRules:
        """The rules of the game, from the ``Variant`` tag."""
        token = self.tags.get("Variant")
        line = self.tag_lines.get("Variant", self.line)
        if token is None:
            raise self._error('the game has no Variant tag (e.g. [Variant "gobblet"])')
        try:
            return variant(token)
        except ValueError as e:
            raise self._error(f"Variant: {e}", line) from None

    def start_board(self) -> Game:
        """The game before the first move: the ``Position`` tag, or the variant's start."""
        rules = self.rules
        text = self.tags.get("Position")
        if text is None:
            return rules.new_game()
        line = self.tag_lines.get("Position", self.line)
        try:
            board = parse_position(text)
        except ValueError as e:
            raise self._error(f"Position: {e}", line) from None
        if board.rules != rules:
            raise self._error(
                f"Position is a {board.rules.token} position but Variant is {rules.token}", line
            )
        return board

    def replay(self) -> Game:
        """The board after playing every move from the start, each checked, and the recorded
        ending (resignation, agreement, time, touch-move) applied.

        Raises ``RecordError`` naming the move number, side and line of the first move that is
        unreadable or illegal, or saying how the recorded result disagrees with the game.
        """
        board = self.start_board()
        for recorded in self.moves:
            number = 1 + board.ply // 2
            first = board.ply % 2 == 0  # the first player's move
            label = f"move {number} ({board.player_name(board.turn)})"
            line = recorded.line or self.line
            if recorded.number is not None:
                expected = f"{number}{'.' if first else '...'}"
                if recorded.number != expected:
                    raise self._error(
                        f"move number {recorded.number} before {recorded.text} should be "
                        f"{expected}: it is {label}",
                        line,
                    )
            try:
                move = board.parse_move(recorded.text)
            except IllegalMove as e:
                reason = _unprefixed(str(e), recorded.text)
                raise self._error(f"{label} {recorded.text}: illegal: {reason}", line) from None
            except ValueError as e:  # the text cannot be read
                raise self._error(
                    f"{label} {recorded.text}: {_unprefixed(str(e), recorded.text)}", line
                ) from None
            board.push(move)
        self._check_ending(board)
        return board

    def _check_ending(self, board: Any) -> None:
        """Compare the game's end with the Result and Termination tags; apply an ending action."""
        line = self.end_line or self.line
        termination = self.tags.get("Termination")
        outcome = board.outcome()
        if outcome is not None:
            if self.result != outcome.result or termination not in (None, outcome.reason):
                recorded = self.result + (f" ({termination})" if termination else "")
                raise self._error(
                    f"the game ends after the last move ({_ending_words(board, outcome)}: "
                    f"{outcome.result}, {outcome.reason}) but the record says {recorded}",
                    line,
                )
            return
        if termination in (None, UNFINISHED):
            if self.result != "*":
                raise self._error(
                    f"the result is {self.result} but the game is not over after the last move; "
                    f"a Termination tag (resignation, agreement, time or touch-move) says how it ended",
                    line,
                )
            return
        if termination == RESIGNATION:
            if self.result not in _WINNER_OF_RESULT:
                raise self._error(
                    f"a game ended by resignation has result 1-0 or 0-1, not {self.result}", line
                )
            board.resign(1 - _WINNER_OF_RESULT[self.result])
        elif termination == AGREEMENT:
            if self.result != "1/2-1/2":
                raise self._error(
                    f"a draw by agreement has result 1/2-1/2, not {self.result}", line
                )
            board.agree_draw()
        elif termination == TIME_FORFEIT and hasattr(board, "lose_on_time"):
            if self.result not in _WINNER_OF_RESULT:
                raise self._error(
                    f"a game lost on time has result 1-0 or 0-1, not {self.result}", line
                )
            board.lose_on_time(1 - _WINNER_OF_RESULT[self.result])
        elif termination == TOUCH_MOVE and hasattr(board, "forfeit_touch"):
            loser = board.player_name(board.turn)
            if _WINNER_OF_RESULT.get(self.result) != 1 - board.turn:
                raise self._error(
                    f"a touch-move loss is the loss of the player to move ({loser}), so the "
                    f"result is {'0-1' if board.turn == 0 else '1-0'}, not {self.result}",
                    line,
                )
            stuck = [sq for sq in range(board.rules.squares) if board.touch(sq).loses]
            if not stuck:
                raise self._error(
                    f"Termination is touch-move but every piece {loser} could lift can move",
                    line,
                )
            board.forfeit_touch(stuck[0])
        else:
            raise self._error(
                f"Termination is {termination} but the game is not over after the last move", line
            )

    # ------------------------------------------------------------------ building
    @classmethod
    def from_board(
        cls,
        board: Game,
        tags: Mapping[str, str] | None = None,
        annotations: Sequence[Mapping[str, object]] | None = None,
        comments: Sequence[str] | None = None,
    ) -> "GameRecord":
        """The record of the game played on ``board`` (its move stack and its outcome).

        ``tags`` are kept in order; Variant, Position (for a set-up start), Result and
        Termination come from the board and replace any given.  ``annotations[i]`` and
        ``comments[i]`` go with the i-th move (values are written as text).
        """
        start = board.copy()
        played = []
        while start.can_pop:
            played.append(start.pop())
        played = [move for move in reversed(played) if move is not None]  # not resignations
        rules = board.rules
        derived = {"Variant", "Position", "Result", "Termination", "Format"}
        out = {"Variant": rules.token}
        for name, value in (tags or {}).items():
            if name not in derived:
                out[name] = str(value)
        if start.text() != rules.new_game().text():
            out["Position"] = start.text()
        outcome = board.outcome()
        result = outcome.result if outcome else "*"
        out["Result"] = result
        out["Termination"] = outcome.reason if outcome else UNFINISHED
        annotations = list(annotations or [])
        comments = list(comments or [])
        moves = []
        for i, move in enumerate(played):
            notes = annotations[i] if i < len(annotations) else {}
            moves.append(
                RecordedMove(
                    start.move_text(move),
                    {str(k): str(v) for k, v in notes.items()},
                    comments[i] if i < len(comments) else "",
                )
            )
            start.push(move)
        return cls(out, moves, result)


def _ending_words(game: Game, outcome: Outcome) -> str:
    """Who won, in words, for a message."""
    if outcome.winner is None:
        return "a draw"
    return f"{game.player_name(outcome.winner)} wins"


# ---------------------------------------------------------------------- writing
def _escape_tag(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _escape_comment(text: str) -> str:
    return re.sub(r"([\\{}\[\]])", r"\\\1", text)


def _comment_text(move: RecordedMove) -> str:
    parts = [
        f"[%{k} {_escape_comment(v)}]" if v else f"[%{k}]" for k, v in move.annotations.items()
    ]
    if move.comment:
        parts.append(_escape_comment(move.comment))
    return "{" + " ".join(parts) + "}" if parts else ""


def write_record(record: GameRecord) -> str:
    """One game as record text: tags, a blank line, one move number per line, the result."""
    lines = [f'[Format "{FORMAT}"]']
    lines += [f'[{name} "{_escape_tag(value)}"]' for name, value in record.tags.items()]
    lines.append("")
    try:
        start = record.start_board()
        ply, first = start.ply, start.turn == start.rules.first
    except RecordError:
        ply, first = 0, True  # still writable, so a broken game can be saved and fixed by hand
    row: list[str] = []
    for move in record.moves:
        number = 1 + ply // 2
        if first:
            if row:
                lines.append(" ".join(row))
            row = [f"{number}."]
        elif not row or row[-1].endswith("}"):
            row.append(f"{number}...")
        row.append(move.text)
        comment = _comment_text(move)
        if comment:
            row.append(comment)
        ply += 1
        first = not first
    row.append(record.result)
    lines.append(" ".join(row))
    return "\n".join(lines) + "\n"


def write_records(records: Iterable[GameRecord]) -> str:
    """Record text for several games, separated by blank lines."""
    return "\n".join(write_record(r) for r in records)


# ---------------------------------------------------------------------- reading
@dataclass
class _Token:
    kind: str  # "tag", "comment", "word"
    line: int
    text: str = ""
    value: str = ""
    annotations: dict[str, str] = field(default_factory=dict)


class _Reader:
    """Splits record text into tags, comments and words, keeping line numbers."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.pos = 0
        self.line = 1

    def error(self, message: str, line: int | None = None) -> RecordError:
        return RecordError(message, self.source, self.line if line is None else line)

    def tokens(self) -> Iterable[_Token]:
        text = self.text
        while True:
            self._skip_space()
            if self.pos >= len(text):
                return
            c = text[self.pos]
            if c == "[":
                yield self._tag()
            elif c == "{":
                yield self._comment()
            elif c in "]}":
                raise self.error(f"{c!r} without a matching opening bracket")
            elif c == ";":  # rest-of-line comment, for people editing files by hand
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            else:
                start = self.pos
                while (
                    self.pos < len(text)
                    and not text[self.pos].isspace()
                    and text[self.pos] not in "[]{};"
                ):
                    self.pos += 1
                yield _Token("word", self.line, text[start : self.pos])

    def _skip_space(self) -> None:
        text = self.text
        while self.pos < len(text) and text[self.pos].isspace():
            if text[self.pos] == "\n":
                self.line += 1
            self.pos += 1

    def _tag(self) -> _Token:
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        line_text = self.text[self.pos : end]
        m = re.match(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]', line_text)
        if not m:
            if "]" not in line_text:
                raise self.error(
                    f'unterminated tag {line_text.strip()!r}: a tag is [Name "value"] on one line'
                )
            raise self.error(f'{line_text.strip()!r} is not a tag like [White "Ann"]')
        value = re.sub(r"\\(.)", r"\1", m[2])
        self.pos += m.end()
        return _Token("tag", self.line, m[1], value)

    def _comment(self) -> _Token:
        text = self.text
        start_line = self.line
        self.pos += 1
        free: list[str] = []
        notes: dict[str, str] = {}
        buf: list[str] = []
        key: str | None = None  # inside an annotation when not None
        key_line = 0
        while True:
            if self.pos >= len(text):
                if key is not None:
                    raise self.error(f"unterminated annotation [%{key} ...", key_line)
                raise self.error("unterminated comment: '{' without a closing '}'", start_line)
            c = text[self.pos]
            if c == "\\" and self.pos + 1 < len(text):
                nxt = text[self.pos + 1]
                if nxt == "\n":
                    self.line += 1
                buf.append(nxt)
                self.pos += 2
                continue
            if c == "\n":
                self.line += 1
            if key is None and c == "[" and text.startswith("[%", self.pos):
                free.append("".join(buf))
                buf = []
                m = re.compile(r"\[%([A-Za-z][A-Za-z0-9_-]*)(?=[\s\]])").match(text, self.pos)
                if not m:
                    raise self.error(
                        "an annotation is [%key value] with a key of letters, digits, '_' or '-'"
                    )
                key, key_line = m[1], self.line
                if key in notes:
                    raise self.error(f"annotation [%{key}] given twice for one move")
                self.pos = m.end()
                continue
            if key is not None and c in "]}":
                if c == "}":
                    raise self.error(
                        f"unterminated annotation [%{key} ...: ']' is missing", key_line
                    )
                notes[key] = _collapse("".join(buf))
                buf, key = [], None
                self.pos += 1
                continue
            if key is None and c == "}":
                free.append("".join(buf))
                self.pos += 1
                return _Token(
                    "comment", start_line, value=_collapse(" ".join(free)), annotations=notes
                )
            buf.append(c)
            self.pos += 1


def read_records(text: str, source: str = "<text>") -> list[GameRecord]:
    """The games of record text, in order; raises ``RecordError`` naming source, line and
    problem for anything that does not fit the format."""
    reader = _Reader(text, source)
    records: list[GameRecord] = []
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    moves: list[RecordedMove] = []
    number: tuple[str, int] | None = None  # a move number waiting for its move
    start = 0

    def finish(result: str, line: int) -> None:
        nonlocal tags, tag_lines, moves, start
        if "Variant" not in tags:
            raise RecordError(
                'the game has no Variant tag (e.g. [Variant "gobblet"])', source, start
            )
        _check_tags(tags, tag_lines, source)
        if tags.get("Result", result) != result:
            raise RecordError(
                f"the game ends with {result} but its Result tag says {tags['Result']}",
                source,
                line,
            )
        records.append(GameRecord(tags, moves, result, source, start, line, tag_lines))
        tags, tag_lines, moves, start = {}, {}, [], 0

    last_line = 1
    for tok in reader.tokens():
        last_line = tok.line
        if not start:
            start = tok.line
        if tok.kind == "tag":
            if moves or number:
                raise reader.error(
                    "a tag in the middle of the moves: the game before it has no result "
                    "(1-0, 0-1, 1/2-1/2 or *) at its end",
                    tok.line,
                )
            if tok.text in tags:
                raise reader.error(
                    f"tag {tok.text} given twice (first on line {tag_lines[tok.text]})", tok.line
                )
            tags[tok.text] = tok.value
            tag_lines[tok.text] = tok.line
        elif tok.kind == "comment":
            if number is not None:
                raise reader.error(
                    f"a comment after move number {number[0]}: the move must come first", tok.line
                )
            if not moves:
                raise reader.error(
                    "a comment must follow a move (put notes about the game in a tag)", tok.line
                )
            last = moves[-1]
            for key in tok.annotations:
                if key in last.annotations:
                    raise reader.error(f"annotation [%{key}] given twice for {last.text}", tok.line)
            last.annotations.update(tok.annotations)
            last.comment = _collapse(f"{last.comment} {tok.value}")
        elif tok.text in RESULTS:
            if number is not None:
                raise reader.error(
                    f"move number {number[0]} is followed by the result, not a move", tok.line
                )
            finish(tok.text, tok.line)
        else:
            word = tok.text
            m = _NUMBER.match(word)
            if m:
                if number is not None:
                    raise reader.error(
                        f"two move numbers in a row ({number[0]} and {word})", tok.line
                    )
                number = (m[1] + m[2], tok.line)
                word = m[3]
                if not word:
                    continue
            shape = _move_shape(tags.get("Variant", ""))
            if shape is None:  # no variant yet: any family's move shape
                shapes = (_move_shape(name) for fam in FAMILIES.values() for name in fam.presets[:1])
                fits = any(sh is not None and sh.match(word) for sh in shapes)
            else:
                fits = bool(shape.match(word))
            if not fits:
                raise reader.error(
                    f"unknown token {word!r}: expected a move (4c3, 4b1-c3), a move number (7.) "
                    f"or a result (1-0, 0-1, 1/2-1/2, *)",
                    tok.line,
                )
            if not tags:
                raise reader.error(
                    f'{word!r}: a game starts with its tags, e.g. [Variant "gobblet"]', tok.line
                )
            moves.append(RecordedMove(word, {}, "", tok.line, number[0] if number else None))
            number = None
    if tags or moves or number:
        raise RecordError(
            "the last game does not end with a result (1-0, 0-1, 1/2-1/2 or *)", source, last_line
        )
    return records


def _check_tags(tags: dict[str, str], lines: dict[str, int], source: str) -> None:
    """Check the tags the format defines: Format, Variant, Position, Result, Termination."""
    if "Format" in tags and tags["Format"] != FORMAT:
        raise RecordError(
            f"Format {tags['Format']!r} is not supported; this reader knows {FORMAT!r}",
            source,
            lines["Format"],
        )
    try:
        rules = variant(tags["Variant"])
    except ValueError as e:
        raise RecordError(f"Variant: {e}", source, lines["Variant"]) from None
    if "Position" in tags:
        try:
            board = parse_position(tags["Position"])
        except ValueError as e:
            raise RecordError(f"Position: {e}", source, lines["Position"]) from None
        if board.rules != rules:
            raise RecordError(
                f"Position is a {board.rules.token} position but Variant is {rules.token}",
                source,
                lines["Position"],
            )
    if "Result" in tags and tags["Result"] not in RESULTS:
        raise RecordError(
            f"Result {tags['Result']!r} is not one of {', '.join(RESULTS)}", source, lines["Result"]
        )
    allowed = terminations(tags["Variant"])
    if "Termination" in tags and tags["Termination"] not in allowed:
        raise RecordError(
            f"Termination {tags['Termination']!r} is not one of {', '.join(allowed)}",
            source,
            lines["Termination"],
        )


# ---------------------------------------------------------------------- files
def load_records(path: str | os.PathLike[str]) -> list[GameRecord]:
    """The games of a record file; ``RecordError`` names the file and line of a problem."""
    name = str(path)
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise RecordError("the file is not UTF-8 text", name, line) from None
    return read_records(text, name)


def save_records(path: str | os.PathLike[str], records: Iterable[GameRecord]) -> None:
    """Write ``records`` to ``path`` atomically: a crash leaves the old file or the new one."""
    write_atomic(Path(path), write_records(records), what="the record file")


def append_record(path: str | os.PathLike[str], record: GameRecord) -> None:
    """Add one game at the end of a record file (created if missing), atomically.  The text
    already in the file is kept as it is."""
    path = Path(path)
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = ""
    new = write_record(record)
    write_atomic(path, f"{old.rstrip()}\n\n{new}" if old.strip() else new, what="the record file")
