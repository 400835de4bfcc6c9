"""Turns frames of the empty board and a physical piece set into a saved calibration."""
