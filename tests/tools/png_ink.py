#!/usr/bin/python3
"""png_ink.py FILE.png [--runs RRGGBB | --pixels RRGGBB]: the screenshot's size and how much is
drawn on it, decoded with the standard library (zlib): prints 'WIDTHxHEIGHT
ink=F colors=N', F the fraction of pixels that are not the page's white
background (each channel below 245), N the distinct colours; with --runs,
also ' runs=R': the horizontal runs of 30 pixels or more of that colour
(each channel within 24 of it: a solid line drawn across a chart, not text
or a dashed rule, and not a faint, half-transparent one); with --pixels,
' pixels=P': the pixels of that colour (each channel within 24: a line
in any direction, a point, coloured text).  8-bit RGB or
RGBA, non-interlaced (what Chromium writes); anything else exits 2."""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def rows(data, w, h, bpp):
    stride, prev, i = w * bpp, bytearray(w * bpp), 0
    for _ in range(h):
        f, line = data[i], bytearray(data[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            line[x] = (line[x] + (0, a, b, (a + b) // 2, paeth(a, b, c))[f]) & 255
        yield line
        prev = line


def main():
    blob = open(sys.argv[1], "rb").read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("png_ink: not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(blob):
        n, kind = struct.unpack(">I4s", blob[pos:pos + 8])
        body = blob[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        print(f"png_ink: unsupported PNG (depth {depth}, colour type {ctype})", file=sys.stderr)
        sys.exit(2)
    bpp = 3 if ctype == 2 else 4
    mode = sys.argv[2] if len(sys.argv) > 3 and sys.argv[2] in ("--runs", "--pixels") else None
    want = bytes.fromhex(sys.argv[3]) if mode else None
    ink, colors, runs, pixels = 0, set(), 0, 0
    for line in rows(zlib.decompress(idat), w, h, bpp):
        run = 0
        for x in range(0, w * bpp, bpp):
            px = bytes(line[x:x + 3])
            colors.add(px)
            ink += min(px) < 245
            if want is not None:
                near = all(abs(px[i] - want[i]) <= 24 for i in range(3))
                run = run + 1 if near else 0
                runs += run == 30
                pixels += near
    print(f"{w}x{h} ink={ink / (w * h):.3f} colors={len(colors)}" +
          (f" runs={runs}" if mode == "--runs" else f" pixels={pixels}" if mode else ""))


if __name__ == "__main__":
    main()
