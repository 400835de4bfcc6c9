"""Subcommand groups of the ``cupboard`` command line, one module per area."""


class UserError(Exception):
    """A problem the user can fix (bad input, missing file, a busy port); printed as one line
    without a traceback.  Defined here, not in ``cli``, so that ``python -m companion.cli``
    (where ``cli`` runs as ``__main__``) catches the same class the commands raise."""


from . import engine_cmds, search_cmds, serve_cmds, service_cmds, set_cmds, vision_cmds, watch_cmds  # noqa: E402

COMMAND_MODULES = [engine_cmds, watch_cmds, serve_cmds, vision_cmds, set_cmds, service_cmds, search_cmds]
