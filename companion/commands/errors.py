"""The error every subcommand raises for a problem the user can fix."""


class UserError(Exception):
    """A problem the user can fix (bad input, missing file, a busy port); printed as one line
    without a traceback.  Defined here, not in ``cli``, so that ``python -m companion.cli``
    (where ``cli`` runs as ``__main__``) catches the same class the commands raise."""
