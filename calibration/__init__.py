"""Calibration: from a few frames of the empty board (and optionally one light and one dark
cup) to a saved, versioned description of where the board is, where the camera is, how the
players' colours look and how big each size class appears."""

from .calibrate import calibrate
from .model import (
           Calibration,
           CalibrationError,
           ColourModel,
           load_calibration,
           save_calibration,
)

__all__ = ["Calibration", "CalibrationError", "ColourModel", "calibrate", "load_calibration",
           "save_calibration"]
