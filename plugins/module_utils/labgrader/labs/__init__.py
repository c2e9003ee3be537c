"""One module per lab: what to collect and the checks of every step."""
