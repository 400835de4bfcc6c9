"""Vision: a camera frame and a calibration in, an Observation of every square out."""

from .observation import Observation, SquareReading
from .recognise import Recogniser, recognise

__all__ = ["Observation", "SquareReading", "Recogniser", "recognise"]
