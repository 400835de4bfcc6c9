"""The game API: read the live state; start a game, move, take back, resign, agree a draw;
export the game so far as a record."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime
from typing import Any

from flask import Blueprint, Response, jsonify, request

from engine import FAMILIES, IllegalMove, family_of, variant
from engine.record import RecordError, write_record

from engine.files import StorageError
from engine.inputs import InputError, check_strings, check_text, parse_json

from ..clock import TIME_TAG, ClockError, TimeControl
from ..services import companion
from ..journal import JournalError
from ..session import SessionError
from .errors import ApiError
from .hub import GameChanged, NoGame, colour_name, game_id, parse_colour
from .security import has_control, require_control

log = logging.getLogger(__name__)
bp = Blueprint("game_api", __name__, url_prefix="/api")

MAX_NAME = 40


def json_body() -> dict[str, Any]:
    """The request's JSON object, checked by the input gate (``engine.inputs``): 400 when the
    body is missing, not UTF-8 JSON, nested too deeply, not an object, or holds a string a
    journal cannot store (a lone surrogate, a control character, too long)."""
    try:
        data = parse_json(request.get_data(cache=True), "the request body")
        if not isinstance(data, dict):
            raise InputError("the request body must be a JSON object")
        check_strings(data, "the request body")
    except InputError as e:
        message = str(e)
        if message.startswith("the request body: not valid JSON"):
            message = "the request body must be a JSON object"
        raise ApiError(400, message) from None
    return data


def game_errors(e: Exception) -> ApiError:
    """The API error for an exception raised by the game."""
    if isinstance(e, NoGame):
        return ApiError(404, str(e.args[0]))
    if isinstance(e, GameChanged):
        return ApiError(409, str(e.args[0]))
    if isinstance(e, SessionError):
        return ApiError(409, str(e))
    if isinstance(e, StorageError):
        return ApiError(507, str(e))
    if isinstance(e, JournalError):
        return ApiError(400, str(e))
    return ApiError(422, str(e))


def _text(data: dict[str, Any], key: str, default: str) -> str:
    value = data.get(key, default)
    try:
        check_text(value, key, 1000)
    except InputError as e:
        raise ApiError(400, str(e)) from None
    value = " ".join(value.split())[:MAX_NAME]
    return value or default


@bp.get("/state")
def state():
    """The live game's state (spectators too)."""
    try:
        snap = companion().hub.snapshot()
    except NoGame as e:
        raise game_errors(e) from None
    return Response(snap.json, mimetype="application/json", headers={"Cache-Control": "no-store"})


@bp.get("/whoami")
def whoami():
    """Whether this request may control the game."""
    return jsonify(control=has_control(), camera=companion().camera is not None)


@bp.get("/variants")
def variants():
    """The variants and piece sets a new game can use."""
    from hardware.pieces import piece_set_names

    variants, families = [], []
    for fam in FAMILIES.values():
        for token in fam.offered or fam.presets:
            rules = variant(token)
            item = {"token": token, "family": fam.name, "name": rules.name}
            for key in ("board", "sizes"):  # what the piece picker shows, where a game has it
                if hasattr(rules, key):
                    item[key] = getattr(rules, key)
            variants.append(item)
        game = variant(fam.presets[0]).new_game()
        families.append({"name": fam.name, "options": list(fam.options), "camera": fam.camera_referee,
                         "pieces": hasattr(variant(fam.presets[0]), "sizes"),  # pieces of two colours
                         "players": [game.player_name(0), game.player_name(1)]})
    return jsonify(
        variants=variants, families=families,
        sets=list(piece_set_names(companion().config.data_dir)),  # the user's own first
    )


@bp.post("/game/new")
@require_control
def new_game():
    """Start a new game: ``variant``, ``options`` (the family's new-game options, e.g. Cups'
    ``{"cups": 3, "beans": 6, "count_left": true}``, which make the variant token), ``set``
    (piece set), ``white``/``black`` (the names of the first and second player; in Gobblet White
    plays the light pieces), ``first`` (who starts), ``hint_limit`` (hints per player per turn,
    0 for no limit), ``clock_minutes`` and ``clock_increment`` (a game clock: minutes per player
    and seconds added after each move; none without them, see ``companion.clock``)."""
    data = json_body()
    token = _text(data, "variant", "gobblet")
    options = data.get("options")
    try:
        if options:
            if not isinstance(options, dict):
                raise ValueError("options must be an object such as {\"cups\": 3}")
            fam = family_of(token)
            if fam.token_for is None:
                raise ValueError(f"{fam.name} takes no options: choose a variant")
            token = fam.token_for(options)
        rules = variant(token)
        if "first" in data:
            rules = replace(rules, first=parse_colour(data["first"], rules.new_game()))
    except ValueError as e:
        raise ApiError(422, str(e)) from None
    limit = data.get("hint_limit", 0)
    if not isinstance(limit, int) or isinstance(limit, bool) or not 0 <= limit <= 99:
        raise ApiError(422, "hint_limit must be a whole number from 0 (no limit) to 99")
    tags = {
        "White": _text(data, "white", "White"),
        "Black": _text(data, "black", "Black"),
        "Date": datetime.now().strftime("%Y.%m.%d"),
    }
    piece_set = data.get("set")
    if piece_set is not None:
        from hardware.pieces import piece_set_names

        known = piece_set_names(companion().config.data_dir)
        if not isinstance(piece_set, str) or piece_set not in known:
            raise ApiError(422, f"unknown piece set {piece_set!r}; known: {', '.join(known)}")
        tags["Set"] = piece_set
    if limit:
        tags["HintLimit"] = str(limit)
    if data.get("clock_minutes"):  # a game clock (off when absent or 0)
        try:
            control = TimeControl.from_minutes(data["clock_minutes"], data.get("clock_increment", 0))
        except ClockError as e:
            raise ApiError(422, str(e)) from None
        tags[TIME_TAG] = control.tag
    _check_camera_can_referee(rules, token)
    hub = companion().hub
    try:
        session = hub.new_game(rules, tags)
    except (StorageError, JournalError) as e:
        raise game_errors(e) from None
    companion().prepare_for(rules)
    return jsonify(game=game_id(session), state=hub.snapshot().state), 201


def _check_camera_can_referee(rules: Any, name: str) -> None:
    """Refuse a game the refereeing camera cannot follow: a family it does not referee yet
    (the family says, ``Family.camera_referee``), or a calibrated piece set with fewer sizes
    than the game needs.  With the camera paused, the game is played by tapping."""
    services = companion()
    live, camera = services.live, services.camera
    if live is None or live.calibration is None or camera is None or camera.paused:
        return
    calibration = live.calibration
    fam = family_of(rules.token)
    if fam.name in live.family_cameras:
        return  # a set-up of its own (Cups): the camera's health says when it cannot referee
    if not fam.camera_referee:
        raise ApiError(422, f"the camera does not referee {rules.name} yet: pause the camera to play it "
                            "by tapping the moves in")
    if getattr(rules, "sizes", None) is None:  # a game of containers, not of pieces
        raise ApiError(422, f"the camera is calibrated for a board of pieces, not for {rules.name}: calibrate "
                            "its table first, or pause the camera to play it by tapping the moves in")
    try:
        calibration.pieces.logical_sizes_for(rules.sizes)
    except ValueError as e:
        raise ApiError(422, f"the camera cannot referee {name}: {e}; calibrate the camera for another set, "
                            "or pause it to enter the moves by tapping") from None


def _parse_move(session, data: dict[str, Any]) -> Any:
    board = session.board
    if "move" in data:
        if not isinstance(data["move"], str):
            raise ApiError(400, "move must be move text such as 4c3 or 4b1-c3 (d3, s2 or pass in Cups)")
        return board.parse_move(data["move"])
    by_squares = getattr(board, "move_from_details", None)  # a game of pieces on squares
    if by_squares is None:
        raise ApiError(400, 'send the move as text: {"move": "..."}')
    size, to, frm = data.get("size"), data.get("to"), data.get("from")
    if not isinstance(size, int) or isinstance(size, bool) or not isinstance(to, str):
        raise ApiError(400, 'send {"move": "4c3"} or {"size": 4, "from": null or "b1", "to": "c3"}')
    if frm is not None and not isinstance(frm, str):
        raise ApiError(400, "from must be a square name such as b1, or null for the reserve")
    try:
        return by_squares(size, to, frm)
    except ValueError as e:
        raise ApiError(400, str(e)) from None


def _describe_attempt(session, data: dict[str, Any]) -> str:
    if isinstance(data.get("move"), str):
        return data["move"].strip()
    frm = data.get("from")
    return f"{data.get('size')}{frm + '-' if frm else ''}{data.get('to')}"


@bp.post("/game/move")
@require_control
def move():
    """Play a move given as ``{"move": "4c3"}`` or ``{"size", "from", "to"}``.  An illegal
    move is refused (422) and announced to every page as a referee alert."""
    data = json_body()
    hub = companion().hub
    try:
        with hub.acting(data.get("game")) as session:
            if session.over:
                raise SessionError("the game is over: start a new game or take back")
            try:
                parsed = _parse_move(session, data)
                reason = session.board.illegal_reason(parsed)
                if reason is not None:
                    raise IllegalMove(reason)
                event = session.play(parsed, source="tap" if "to" in data or data.get("tapped") is True else "text")
            except IllegalMove as e:
                mover = session.board.player_name(session.board.turn)
                attempt = _describe_attempt(session, data)
                try:
                    session.alert(
                        "illegal",
                        f"Illegal move by {mover}: {attempt} ({e})",
                        {"attempt": attempt, "colour": colour_name(session.board.turn), "reason": str(e)},
                    )
                except (StorageError, JournalError) as err:  # the refusal stands all the same
                    log.warning("illegal move alert not journalled: %s", err)
                raise ApiError(422, f"illegal move {attempt}: {e}") from None
            except (SessionError, JournalError):
                raise
            except ValueError as e:  # move text that cannot be read
                raise ApiError(400, str(e)) from None
    except (NoGame, GameChanged, SessionError, StorageError, JournalError) as e:
        raise game_errors(e) from None
    live = companion().live
    if live is not None and live.dismiss():  # the tapped move settles what the camera asked
        hub.refresh()
    state = hub.snapshot().state
    return jsonify(event=event.seq, state=state, problems=state.get("problems", []))


def _action(name: str, data: dict[str, Any]):
    hub = companion().hub
    try:
        with hub.acting(data.get("game")) as session:
            if name == "takeback":
                event = session.take_back()
            elif name == "draw":
                event = session.agree_draw()
            else:
                colour = parse_colour(data["colour"], session.board) if data.get("colour") is not None else None
                event = session.resign(colour)
    except (NoGame, GameChanged, SessionError, StorageError, JournalError) as e:
        raise game_errors(e) from None
    except ValueError as e:
        raise ApiError(422, str(e)) from None
    live = companion().live
    if live is not None and live.dismiss():  # what the camera asked about no longer stands
        hub.refresh()
    return jsonify(event=event.seq, text=event.text, state=hub.snapshot().state)


@bp.post("/game/takeback")
@require_control
def take_back():
    """Take back the last move (or the last ending: a resignation, an agreed draw)."""
    return _action("takeback", json_body())


@bp.post("/game/draw")
@require_control
def draw():
    """Both players agree to a draw."""
    return _action("draw", json_body())


@bp.post("/game/resign")
@require_control
def resign():
    """A player resigns: ``{"colour": "white"}`` (default: the player to move)."""
    return _action("resign", json_body())


@bp.get("/game/record")
def export_record():
    """The live game so far as a record file (a download)."""
    hub = companion().hub
    try:
        with hub.acting() as session:
            record = session.to_record()
            stamp = datetime.fromtimestamp(session.started).strftime("%Y%m%d-%H%M%S")
    except NoGame as e:
        raise game_errors(e) from None
    except RecordError as e:
        raise ApiError(422, f"the game cannot be written as a record: {e}") from None
    return Response(
        write_record(record),
        mimetype="text/plain",
        headers={"Content-Disposition": f'attachment; filename="cupboard-{stamp}.gbn"'},
    )
