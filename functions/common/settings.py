"""The functions' settings: every KIBITZ_* variable is read here and nowhere else, with one failure
convention. A required setting that is missing, or a number that is not one, raises SettingError naming
the variable and what it is for; an optional one that is unset gives its default.

Read when asked for, not at import: the local stack (kibitz serve) and the tests load the functions once
and change their environment afterwards; on Lambda the environment never changes, and a read is a dict
lookup. PageFunction and the live authorizer, which do not ship this layer, read their own (KIBITZ_LIVE_URL;
KIBITZ_API_KEY_VALUE, KIBITZ_API_KEY_ID). The AWS_* variables are the SDK's and Lambda's conventions:
aws/ and analysis/budget.py read them as the SDK does.
"""

import os


class SettingError(RuntimeError):
    """A setting missing or malformed: the message names the variable."""

    def __init__(self, name, problem):
        super().__init__(f"{name} {problem}")
        self.name = name


def text(name, default=None):
    """The variable's value (stripped), or `default` when unset or blank."""
    value = os.environ.get(name, "").strip()
    return value or default


def required(name, what):
    """The variable's value; SettingError ("KIBITZ_X is not set: <what>") when unset or blank."""
    value = text(name)
    if value is None:
        raise SettingError(name, f"is not set: {what}")
    return value


def integer(name, default):
    return _number(name, default, int)


def number(name, default):
    return _number(name, default, float)


def _number(name, default, kind):
    value = text(name)
    if value is None:
        return default
    try:
        return kind(value)
    except ValueError:
        raise SettingError(name, f"is not a{'n integer' if kind is int else ' number'}: {value!r}") from None


# --- the ones read in more than one place ----------------------------------------------------------

def jobs_queue_url(queue_url=None):
    """The jobs queue's URL: `queue_url` if given, else KIBITZ_JOBS_QUEUE_URL (required)."""
    return queue_url or required("KIBITZ_JOBS_QUEUE_URL", "the jobs queue's URL")


def output_bucket():
    """KIBITZ_OUTPUT_BUCKET, or None where there is none (the CLI reading a table)."""
    return text("KIBITZ_OUTPUT_BUCKET")


def record_margin_ms(default):
    """KIBITZ_RECORD_MARGIN_MS: time kept back from the deadline for recording a result."""
    return integer("KIBITZ_RECORD_MARGIN_MS", default)
