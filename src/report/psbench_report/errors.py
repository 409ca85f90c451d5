"""The one error type the report raises for bad input: printed as one `psbench: error:` line, exit 2."""


class ReportError(Exception):
    """Bad input (a missing, malformed or mixed-version file, a bad flag): the message names the file."""


#: Exit code for bad input, as every psbench subcommand uses (docs/running.md).
USER_ERROR_EXIT_CODE = 2
