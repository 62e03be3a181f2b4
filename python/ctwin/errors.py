"""Errors ctwin raises."""


class InputError(ValueError):
    """Bad input: a file, field or argument ctwin cannot accept.

    ``file`` names the file (or argument) and ``field`` the JSON pointer inside it, when there
    is one; ``str(error)`` is the same one-line message the ``ctwin`` command prints.
    """

    def __init__(self, message: str, file: str = "", field: str = ""):
        super().__init__(message)
        self.file = file
        self.field = field
