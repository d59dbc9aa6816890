"""The two ways a job ends early, kept apart because the exit status tells them apart."""


class UserError(Exception):
    """Bad input from the user (exit 2): one line `FILE: line N: what was expected`."""

    def __init__(self, line: str):
        super().__init__(line)
        self.line = line


class CandidateLoadError(Exception):
    """The candidate could not be loaded or built: a verdict (compile_error), not a worker failure.

    `line` is the one-line reason (`C.py: line 7: SyntaxError: ...`), `log` the long text (the
    traceback, the compiler output carried by load_inline's exception), `kind` what failed.
    """

    def __init__(self, line: str, log: str = "", kind: str = "compilation_error", exc=None):
        super().__init__(line)
        self.line = line
        self.log = log
        self.kind = kind
        self.exc = exc
