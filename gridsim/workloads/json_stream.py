"""Walk a large JSON document a value at a time, without holding it whole.

Consumes a text stream holding one JSON object; produces its members one by one
(:meth:`JsonStream.members`), the elements of an array member one by one
(:meth:`JsonStream.elements`), and plain values decoded by the standard library's C decoder
(``json.JSONDecoder.raw_decode``). Only a window of the text is held: a value is decoded
from a buffer refilled from the stream as it is consumed, so a Batsim workload of a million
jobs never sits whole in memory beside its decoded jobs. Errors name the line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TextIO

from gridsim.workloads.records import WorkloadFormatError

_WHITESPACE = " \t\n\r"


class JsonStream:
    """A JSON text read from ``stream`` a piece (``chunk`` characters) at a time."""

    def __init__(self, stream: TextIO, source: str, chunk: int = 1 << 20):
        self.stream, self.source, self.chunk = stream, source, chunk
        self.buffer, self.position = "", 0
        self.line_before = 1  # line number of the buffer's first character
        self.counted, self.counted_lines = 0, 0  # newlines in buffer[:counted]
        self.at_end = False
        self.decoder = json.JSONDecoder()

    def line(self, position: int | None = None) -> int:
        """The line number of ``position`` in the buffer (default: the current one)."""
        where = self.position if position is None else position
        if where < self.counted:  # behind the count kept (an error's position): count afresh
            return self.line_before + self.buffer.count("\n", 0, where)
        self.counted_lines += self.buffer.count("\n", self.counted, where)
        self.counted = where
        return self.line_before + self.counted_lines

    def fail(self, problem: str, position: int | None = None) -> WorkloadFormatError:
        return WorkloadFormatError(self.source, self.line(position), problem)

    def _fill(self) -> bool:
        """Read more text, dropping what was consumed; False at the end of the stream."""
        if self.at_end:
            return False
        self.line_before = self.line(self.position)
        self.counted = self.counted_lines = 0
        text = self.stream.read(max(self.chunk, len(self.buffer)))
        self.buffer, self.position = self.buffer[self.position :] + text, 0
        self.at_end = not text
        return bool(text)

    def peek(self) -> str:
        """The next character after whitespace ("" at the end)."""
        while True:
            while self.position < len(self.buffer) and self.buffer[self.position] in _WHITESPACE:
                self.position += 1
            if self.position < len(self.buffer) or not self._fill():
                return self.buffer[self.position : self.position + 1]

    def expect(self, characters: str, what: str) -> str:
        found = self.peek()
        if not found or found not in characters:
            shown = repr(found) if found else "the end of the file"
            raise self.fail(f"expected {what}, found {shown}")
        self.position += 1
        return found

    def value(self) -> Any:
        """The next JSON value, decoded."""
        self.peek()
        while True:
            try:
                decoded, end = self.decoder.raw_decode(self.buffer, self.position)
            except json.JSONDecodeError as error:
                if self._fill():  # perhaps cut off by the buffer's end: read on
                    continue
                if not self.buffer[error.pos :].strip():
                    raise self.fail("the file ends inside a JSON value (cut short?)",
                                    error.pos) from None  # fmt: skip
                raise self.fail(f"not valid JSON: {error.msg}", error.pos) from None
            if end == len(self.buffer) and not self.at_end and self._fill():
                continue  # a number may go on past the buffer
            self.position = end
            return decoded

    def members(self) -> Iterator[tuple[str, int]]:
        """The keys of the object starting here, with their line; the caller consumes each
        member's value (:meth:`value`, :meth:`elements`, :meth:`members`) before the next."""
        self.expect("{", "a JSON object ({)")
        if self.peek() == "}":
            self.position += 1
            return
        while True:
            if self.peek() != '"':  # also moves to the name's first character: its line
                raise self.fail("expected a member name in double quotes")
            line = self.line()
            key = self.value()
            self.expect(":", "':' after a member name")
            yield key, line
            if self.expect(",}", "',' or '}' after a member") == "}":
                return

    def elements(self) -> Iterator[int]:
        """The line of each element of the array starting here; the caller consumes each
        element before the next."""
        self.expect("[", "a JSON array ([)")
        if self.peek() == "]":
            self.position += 1
            return
        while True:
            self.peek()  # the element's first character: its line
            yield self.line()
            if self.expect(",]", "',' or ']' after an array element") == "]":
                return

    def batches(self) -> Iterator[list[Any]]:
        """The elements of the array of objects starting here, decoded many at a time: the
        buffer up to its last ``},`` is decoded as one array when it is one (a cut inside a
        string or a nested value would not be), else one element is decoded alone."""
        self.expect("[", "a JSON array ([)")
        if self.peek() == "]":
            self.position += 1
            return
        while True:
            self.peek()
            batch = self._batch()
            if batch is None:
                batch = [self.value()]
            yield batch
            if self.expect(",]", "',' or ']' after an array element") == "]":
                return

    def _batch(self) -> list[Any] | None:
        """The elements from here to the buffer's last ``},`` that decode as an array; where
        that text does not, the part before the error is tried once more (the last elements
        of an array are followed by more of the document). None if neither decodes."""
        end = len(self.buffer)
        for _ in range(2):
            cut = self.buffer.rfind("},", self.position, end)
            if cut <= self.position:
                return None
            try:
                batch = json.loads(f"[{self.buffer[self.position : cut + 1]}]")
            except json.JSONDecodeError as error:
                end = self.position + error.pos - 1  # the text decoded before the error
                continue
            self.position = cut + 1
            return batch
        return None

    def end(self) -> None:
        """Nothing but whitespace may follow the document."""
        if self.peek():
            raise self.fail("text after the end of the JSON document")
