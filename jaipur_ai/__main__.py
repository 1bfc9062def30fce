"""``python -m jaipur_ai``: the ``jaipur-ai`` command line."""
import sys

from jaipur_ai.doors.cli import main

if __name__ == "__main__":
    sys.exit(main())
