"""Frame + calibration -> observations of the board: which top cup stands on each square."""
