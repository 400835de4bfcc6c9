"""The Gobblet search: iterative-deepening alpha-beta (``searcher``) with frontier scoring
without playing moves (``frontier``), threat replies from flat tables (``threat_replies``), the
score scale (``scores``) and helper processes sharing a time-bound search (``parallel``, over
``shared_table``)."""

from . import parallel  # registers the helper processes with the searcher
from .parallel import default_helpers
from .searcher import (
    MATE,
    MATE_BOUND,
    ScoredMove,
    Searcher,
    SearchLimits,
    SearchResult,
    mate_distance,
    search,
)

__all__ = [
    "MATE", "MATE_BOUND", "ScoredMove", "SearchLimits", "SearchResult", "Searcher",
    "default_helpers", "mate_distance", "parallel", "search",
]
