"""Reading the text files users give (one clear error per failure)."""

from __future__ import annotations


def read_text(path) -> str:
    """The text of a UTF-8 file; a one-line ValueError when it cannot be read or is empty."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read file ({exc.__class__.__name__}: {exc})") from None
    if not text.strip():
        raise ValueError(f"{path}: file is empty")
    return text
