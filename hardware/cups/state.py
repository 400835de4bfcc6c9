"""The Cups table state as plain data, until the engine (``engine/cups``) gives its own.

Counts only: beans in each of south's and north's cups (each from that player's left), in the
two bowls and the two stocks, (south, north) each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TableState:
    """How many beans each container holds."""

    south: tuple[int, ...]
    north: tuple[int, ...]
    bowls: tuple[int, int]
    stocks: tuple[int, int]

    def __post_init__(self) -> None:
        if len(self.south) != len(self.north):
            raise ValueError(f"both rows must have as many cups: south {len(self.south)}, north {len(self.north)}")
        if any(v < 0 for v in self.as_counts()):
            raise ValueError(f"bean counts cannot be negative: {self}")

    @property
    def cups_per_row(self) -> int:
        """X, the cups in each row."""
        return len(self.south)

    def as_counts(self) -> tuple[int, ...]:
        """Every count in the order of ``CupsLayout.containers``: south's cups, north's cups,
        south's bowl, north's bowl, south's stock, north's stock."""
        return (*self.south, *self.north, *self.bowls, *self.stocks)

    @classmethod
    def from_counts(cls, counts: tuple[int, ...] | list[int]) -> "TableState":
        """The inverse of ``as_counts``."""
        x = (len(counts) - 4) // 2
        if len(counts) != 2 * x + 4 or x < 1:
            raise ValueError(f"{len(counts)} counts do not make two rows, two bowls and two stocks")
        c = [int(v) for v in counts]
        return cls(tuple(c[:x]), tuple(c[x:2 * x]), (c[2 * x], c[2 * x + 1]), (c[2 * x + 2], c[2 * x + 3]))

    @property
    def total(self) -> int:
        """All beans on the table."""
        return sum(self.as_counts())


def start_state(cups_per_row: int = 4, beans_each: int | None = None) -> TableState:
    """The start: empty cups and bowls, 10 X beans in each stock (unless ``beans_each``)."""
    n = 10 * cups_per_row if beans_each is None else beans_each
    return TableState((0,) * cups_per_row, (0,) * cups_per_row, (0, 0), (n, n))
