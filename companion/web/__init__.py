"""The companion's web app, one blueprint per area: pages, the game API, the event stream,
hints, records and the camera."""
