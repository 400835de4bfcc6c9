"""Seeing a Cups table: per cup, bowl and stock whether its beans changed since the last stable
frame and how many it holds (``reader``), hands over the table, and the scorer that picks
which of the referee's candidate after-states the readings show (``explain``)."""
