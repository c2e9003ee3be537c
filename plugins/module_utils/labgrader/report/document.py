"""A report file kept as UTF-8 chunks, each host's encoded when its part was rendered (a
collector's worker, or the controller as the host's record arrived), and written chunk by chunk.

At 1,000 learners grades.json is ~200 MB: joining it into one string was most of the report's
time after the last push (its Japanese and Korean text make the joined string 2 bytes a
character, so every ASCII chunk is widened: 6.0 s for str.join and 4.6 s to encode and write it,
against 0.14 s to write the encoded chunks, docs/performance.md). Nothing here joins the chunks
but `text()`, for a caller that wants the file as a string (build_report, the tests)."""

from __future__ import annotations


class Document:
    """A file's content as a list of UTF-8 byte strings, in order."""

    __slots__ = ("chunks",)

    def __init__(self, chunks):
        self.chunks = chunks

    def text(self):
        return b"".join(self.chunks).decode("utf-8")

    def write_to(self, handle):
        """Write the chunks to a binary file `handle`."""
        handle.writelines(self.chunks)


def as_text(content):
    """A report content as a string: a Document's joined text, a string as it is."""
    return content.text() if isinstance(content, Document) else content
