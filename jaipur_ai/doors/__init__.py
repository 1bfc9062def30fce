"""The doors users come through: the command line, the interactive game, the
JSON-lines server, the web server and its page, and the review of a game."""
