"""Reading JSON documents and their documented keys, with errors that name the file and the key."""

import json
import math
from pathlib import Path

from .errors import ReportError


def read_json(path: Path, what: str) -> dict:
    """Parses `path` as one JSON object; `what` names the kind of file in the error (e.g. "results file")."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{what} '{path}' does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ReportError(f"cannot read {what} '{path}': {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReportError(f"{what} '{path}' is not valid JSON: {error.msg} at line {error.lineno}") from None
    if not isinstance(document, dict):
        raise ReportError(f"{what} '{path}' is not a JSON object")
    return document


def field(document: dict, dotted: str, kind: type, path: Path, what: str):
    """The value at `dotted` ("a.b.c") of a document read from `path`, checked to be of `kind`.

    `kind` float accepts integers too and refuses non-finite numbers; a missing key or a wrong type is a
    ReportError naming the file and the key.
    """
    value = document
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise ReportError(f"{what} '{path}' has no key '{dotted}'")
        value = value[part]
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ReportError(f"{what} '{path}': '{dotted}' is not a finite number")
        return float(value)
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ReportError(f"{what} '{path}': '{dotted}' is not an integer")
    if kind is not int and not isinstance(value, kind):
        raise ReportError(f"{what} '{path}': '{dotted}' is not of type {kind.__name__}")
    return value


def optional_field(document: dict, dotted: str, kind: type, path: Path, what: str):
    """Like field(), but None when the key (or a parent of it) is absent or null."""
    value = document
    for part in dotted.split("."):
        if not isinstance(value, dict) or value.get(part) is None:
            return None
        value = value[part]
    return field(document, dotted, kind, path, what)
