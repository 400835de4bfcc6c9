"""Subcommand groups of the ``cupboard`` command line, one module per area."""

from . import engine_cmds, search_cmds, serve_cmds, vision_cmds, watch_cmds

COMMAND_MODULES = [engine_cmds, watch_cmds, serve_cmds, vision_cmds, search_cmds]
