"""The ``jaipur-ai`` command's entry point, outside the package: importing jaipur_ai
takes a moment (the compiled core and search), and a Ctrl-C in that moment must end
the command like any other Ctrl-C (one line, exit status 130), not with a traceback."""
import sys


def main() -> int:
    try:
        from jaipur_ai.doors.cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("\njaipur-ai: interrupted\n")
        return 130
    return cli_main()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
