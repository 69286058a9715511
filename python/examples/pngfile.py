"""A grey PNG writer for the examples (zlib only: no imaging library needed)."""

import struct
import zlib

import numpy as np


def png(path, image):
    """`image` (values in [0, 1]) as an 8-bit grey PNG."""
    rows = (np.clip(image, 0.0, 1.0) * 255).astype(np.uint8)
    raw = b"".join(b"\x00" + row.tobytes() for row in rows)
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))  # noqa: E731
    header = struct.pack(">IIBBBBB", rows.shape[1], rows.shape[0], 8, 0, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
