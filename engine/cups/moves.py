"""The Cups moves as values: ``Drop``, ``Sow`` and ``Pass`` (see ``engine.cups.game``).

They live apart from the game so that the drawing (``svg``) can name them without importing the
game module, which imports the drawing in turn."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Drop:
    """Drop ``k`` beans from the stock, one into each of the mover's cups 1..k."""

    k: int


@dataclass(frozen=True)
class Sow:
    """Sow the mover's cup number ``cup`` (1 = leftmost) into the following cups and the bowl."""

    cup: int


@dataclass(frozen=True)
class Pass:
    """The forced pass of a player without a legal move."""


CupsMove = Drop | Sow | Pass
