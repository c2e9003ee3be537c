"""Text a report can show as it is: no character in it can move, hide or restyle other text.

A learner controls much of what a report shows (the output of their scripts, object names, file
contents quoted in a message). A control character or bidi override in such text would let them
recolour or clear the instructor's terminal (an ANSI escape), make a FAIL read as a PASS (U+202E
reverses what follows), fake a line break (U+2028, a lone CR) or make junit.xml invalid (XML 1.0
forbids most C0 controls). `printable` replaces each such character with a visible escape,
\\x1b or \\u202e: the reader sees that something was there and which character it was (U+FFFD
would hide which), the escape is plain ASCII that every format (JSON, HTML, XML, CSV, the
terminal, the learner's text) carries unchanged, and it is the notation Python and JSON readers
know. Newlines and tabs are kept: messages and values span lines.

Every report format uses this one function (docs/hostile-input.md "Control characters"). No imports
beyond the standard library: the grade_matrix callback imports it on the controller.
"""

from __future__ import annotations

import re

# C0 controls except TAB and LF, DEL, C1 controls (U+009B is a one-character CSI), the bidi marks,
# embeddings, overrides and isolates (U+061C, U+200E/F, U+202A-E, U+2066-9), the invisible
# characters that make one string look like another (U+200B-D, U+2060-4, U+FEFF), the line and
# paragraph separators, lone surrogates (no UTF-8 file can hold them) and U+FFFE/U+FFFF (not XML).
UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069"
                         "\ufeff\ufffe\uffff\ud800-\udfff]")


def _escape(match):
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text):
    """`text` with every control, bidi and invisible formatting character (except newline and
    tab) replaced by its visible escape: '\\x1b[31m' for ESC [31m, '\\u202e' for RIGHT-TO-LEFT
    OVERRIDE."""
    if text.isprintable():  # every UNPRINTABLE character is not: the common case costs no regex
        return text
    return UNPRINTABLE.sub(_escape, text)

