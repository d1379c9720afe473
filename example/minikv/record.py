"""Binary encoding of the records that both the write-ahead log and the sorted tables use.

Every record is a fixed 13-byte header followed by the key and the value::

    +-----------+----------+-------------+---------------+-----+-------+
    | crc32 (4) | kind (1) | key len (4) | value len (4) | key | value |
    +-----------+----------+-------------+---------------+-----+-------+

All integers are little-endian. The CRC-32 covers everything after the checksum field, so a
record whose bytes were only partly written (a *torn* record, left behind by a crash in the
middle of a write) or were damaged on disk is detected when it is decoded, instead of being
returned as data.

A record either puts a value or deletes a key. A delete is stored as a *tombstone*: a record
with no value, which must be kept until compaction so that it hides older values of the key.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

CHECKSUM = struct.Struct("<I")
FIELDS = struct.Struct("<BII")
"""The header fields the checksum covers: kind, key length, value length."""

HEADER_SIZE = CHECKSUM.size + FIELDS.size
KIND_PUT = 1
KIND_DELETE = 2
MAX_KEY_SIZE = 64 * 1024
MAX_VALUE_SIZE = 64 * 1024 * 1024


class RecordError(Exception):
    """Base class for the problems found while decoding a record."""


class TruncatedRecordError(RecordError):
    """The buffer ends before the record does: the usual trace of a crash during a write."""


class CorruptRecordError(RecordError):
    """The record is complete, but its checksum or its header fields are wrong."""


@dataclass(frozen=True, slots=True)
class Record:
    """One mutation of one key: a put when `value` is bytes, a delete when `value` is None.

    Records are immutable and compare by value, which keeps the memtable, the tables and the
    cache free to share them.
    """

    key: bytes
    value: bytes | None

    @property
    def is_tombstone(self) -> bool:
        """True when this record marks its key as deleted."""
        return self.value is None

    @property
    def encoded_size(self) -> int:
        """The number of bytes `encode` produces for this record."""
        return HEADER_SIZE + len(self.key) + len(self.value or b"")


def encode(record: Record) -> bytes:
    """Serialize `record` to its on-disk form, checksum included.

    Raises ValueError when the key or the value is larger than the format allows.
    """
    value = record.value if record.value is not None else b""
    if len(record.key) > MAX_KEY_SIZE:
        raise ValueError(f"key of {len(record.key)} bytes exceeds {MAX_KEY_SIZE}")
    if len(value) > MAX_VALUE_SIZE:
        raise ValueError(f"value of {len(value)} bytes exceeds {MAX_VALUE_SIZE}")
    kind = KIND_DELETE if record.value is None else KIND_PUT
    body = FIELDS.pack(kind, len(record.key), len(value)) + record.key + value
    return CHECKSUM.pack(zlib.crc32(body)) + body


def decode(buffer: bytes | memoryview, offset: int = 0) -> tuple[Record, int]:
    """Decode the record that starts at `offset` in `buffer`.

    Returns the record and the offset just past it, so that a caller can walk a buffer of
    consecutive records. Raises TruncatedRecordError when the buffer ends inside the record
    and CorruptRecordError when the header is implausible or the checksum does not match.
    """
    view = memoryview(buffer)
    if len(view) - offset < HEADER_SIZE:
        raise TruncatedRecordError(f"{len(view) - offset} bytes left at offset {offset}, "
                                   f"a header needs {HEADER_SIZE}")
    (crc,) = CHECKSUM.unpack_from(view, offset)
    kind, key_len, value_len = FIELDS.unpack_from(view, offset + CHECKSUM.size)
    if kind not in (KIND_PUT, KIND_DELETE) or key_len > MAX_KEY_SIZE \
            or value_len > MAX_VALUE_SIZE or (kind == KIND_DELETE and value_len):
        raise CorruptRecordError(f"implausible header at offset {offset}")
    key_start = offset + HEADER_SIZE
    end = key_start + key_len + value_len
    if end > len(view):
        raise TruncatedRecordError(f"record at offset {offset} ends at {end}, "
                                   f"past the end of the data at {len(view)}")
    if zlib.crc32(view[offset + CHECKSUM.size:end]) != crc:
        raise CorruptRecordError(f"checksum mismatch in record at offset {offset}")
    key = bytes(view[key_start:key_start + key_len])
    value = None if kind == KIND_DELETE else bytes(view[key_start + key_len:end])
    return Record(key, value), end


def iter_records(buffer: bytes | memoryview) -> Iterator[Record]:
    """Yield every record in a buffer that holds nothing but whole, consecutive records.

    Any damage raises a RecordError; use `decode` directly to recover what precedes it.
    """
    offset = 0
    while offset < len(buffer):
        record, offset = decode(buffer, offset)
        yield record
