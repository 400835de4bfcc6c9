"""Subcommand groups of the ``cupboard`` command line, one module per area."""

from . import engine_cmds, search_cmds, serve_cmds, service_cmds, set_cmds, vision_cmds, watch_cmds
from .errors import UserError

COMMAND_MODULES = [engine_cmds, watch_cmds, serve_cmds, vision_cmds, set_cmds, service_cmds, search_cmds]

__all__ = ["COMMAND_MODULES", "UserError"]
