"""tests/mphblocks.py - the framing of memphis run files (docs/format.md, "Framing") for
the test scripts that write or damage blocks: CRC-32C (Castagnoli) and a block with its
16-byte header. Imported with sys.path holding $MEMPHIS_SRC/tests."""
import struct

MAGIC = 0x4b4c424d  # "MBLK"


def crc32c(b):
    c = 0xffffffff
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ (0x82f63b78 if c & 1 else 0)
    return c ^ 0xffffffff


def block(typ, payload, version=1):
    """A block of type typ, layout version `version`, around payload."""
    return struct.pack("<IHHII", MAGIC, typ, version, len(payload), crc32c(payload)) + payload
