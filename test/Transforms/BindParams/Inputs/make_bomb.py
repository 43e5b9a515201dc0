"""Writes a .npz whose member 'b' declares shape (100000000,) float32: 400 MB
of zeros that deflate to about 400 KB, written in chunks (little memory)."""
import sys
import zipfile

header = "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000,), }"
header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
prefix = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED,
                     compresslevel=1) as archive:
    with archive.open("b.npy", "w", force_zip64=True) as member:
        member.write(prefix)
        chunk = bytes(1 << 22)
        for _ in range(400000000 // len(chunk)):
            member.write(chunk)
        member.write(bytes(400000000 % len(chunk)))
