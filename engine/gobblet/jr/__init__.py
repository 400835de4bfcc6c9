"""Gobblet Jr. solved: a compact model of its 3x3 positions (``model``), their numbering up to
symmetry (``index``), proofs by search (``solve``), the exact table of every position's value
(``exact``, built backwards by ``build`` with numba) and the cached table file (``table``)."""
