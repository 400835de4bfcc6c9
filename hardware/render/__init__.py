"""The synthetic camera's renderer: scenes (what is on the board, where the camera is, the
light), textures, and drawing.  ``hardware.synthetic`` is the public entry point."""
