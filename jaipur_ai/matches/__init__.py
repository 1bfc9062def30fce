"""Matches between engines: engine specs, the runner, statistics and the SPRT,
where games run (backends), and game records."""
