"""What the framework environments share: observation dicts and rewards, the
compiled vectorised stepping and OpenSpiel's explicit chance."""
