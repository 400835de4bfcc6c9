"""Frame sources (cameras, replay, the synthetic renderer), physical piece sets and boards."""
