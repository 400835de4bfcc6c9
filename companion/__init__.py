"""The companion: the ``cupboard`` command line and (later) the phone web app that wires the
camera, the referee, hints and records together.  It holds no game logic of its own."""
