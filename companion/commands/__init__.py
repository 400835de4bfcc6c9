"""Subcommand groups of the ``cupboard`` command line, one module per area."""

from . import engine_cmds, search_cmds, vision_cmds

COMMAND_MODULES = [engine_cmds, search_cmds, vision_cmds]
