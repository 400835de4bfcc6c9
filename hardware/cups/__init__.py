"""Cups tables as data: where each player's cups, bowl and stock stand on the table
(``hardware.cups.layout``), and the table state the camera side is driven by."""
