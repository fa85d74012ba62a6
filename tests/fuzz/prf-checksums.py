#!/usr/bin/env python3
"""Make the checksums of .PRF files right (docs/prf-format.md): each chunk's
CRC-32 of its stored bytes, and the END marker's CRC-32 of every byte before
it (1.2 and later).  A fuzzing build skips both checks, so an input the fuzzer
found usually has them wrong: fixed, it reaches the same parser in a plain
build too, and regress.c's verdict is the same in both.

    tests/fuzz/prf-checksums.py FILE...      (rewrites each FILE in place)
"""
import struct
import sys
import zlib


def fix(data):
    data = bytearray(data)
    if len(data) < 16 or data[:8] != b"\x89PRF\r\n\x1a\n":
        return None
    minor = struct.unpack_from("<H", data, 10)[0]
    at = 16
    while at + 24 <= len(data):
        kind = bytes(data[at:at + 4])
        stored = struct.unpack_from("<Q", data, at + 8)[0]
        body = at + 24
        if stored > len(data) - body:
            break  # truncated: nothing more to fix
        struct.pack_into("<I", data, at + 20, zlib.crc32(data[body:body + stored]))
        if kind == b"END ":
            if minor >= 2 and stored >= 4:
                struct.pack_into("<I", data, body, zlib.crc32(data[:at]))
                struct.pack_into("<I", data, at + 20, zlib.crc32(data[body:body + stored]))
            break
        at = body + stored
    return bytes(data)


def main():
    status = 0
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            data = f.read()
        out = fix(data)
        if out is None:
            print(f"{path}: not a .PRF file", file=sys.stderr)
            status = 1
        elif out != data:
            with open(path, "wb") as f:
                f.write(out)
            print(f"{path}: checksums fixed")
    return status


if __name__ == "__main__":
    sys.exit(main())
