#!/usr/bin/env python3
"""Writes the small seed inputs of the fuzz targets into fuzz/seeds/TARGET/.

Every seed is a few hundred bytes: a tiny valid input of each kind a reader meets, so that the
fuzzer starts inside every decoder instead of having to discover file signatures. Pure standard
library, except the JPEGs, which ffmpeg encodes (standard Huffman tables, so that the copies with
their DHT segments removed are the MJPEG frames webcams send). Run from anywhere; the seeds are
committed, this script says how they were made.
"""
import os
import random
import struct
import subprocess
import tempfile
import zlib

ROOT = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(15)


def out(target, name, data):
    d = os.path.join(ROOT, "seeds", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def noise(n):
    return bytes(rng.randrange(256) for _ in range(n))


# ---- PNG: every colour type, 8 and 16 bits, a palette, Adam7 interlacing ----------------------

def png_chunk(kind, body):
    c = kind + body
    return struct.pack(">I", len(body)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)


def png(w, h, color_type, depth, interlace=False, palette=None):
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    row_bytes = (w * channels * depth + 7) // 8
    if interlace:
        raw = b""
        for x0, y0, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                               (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
            pw = max(0, (w - x0 + dx - 1) // dx)
            ph = max(0, (h - y0 + dy - 1) // dy)
            if pw and ph:
                pb = (pw * channels * depth + 7) // 8
                for _ in range(ph):
                    raw += bytes([rng.randrange(5)]) + noise(pb)
    else:
        raw = b"".join(bytes([rng.randrange(5)]) + noise(row_bytes) for _ in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 1 if interlace else 0)
    chunks = png_chunk(b"IHDR", ihdr)
    if palette:
        chunks += png_chunk(b"PLTE", noise(3 * palette))
        chunks += png_chunk(b"tRNS", noise(palette // 2))
    chunks += png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


# ---- BMP, TGA, HDR, PFM ------------------------------------------------------------------------

def bmp(w, h, bpp, top_down=False, palette=0):
    row = ((w * bpp + 31) // 32) * 4
    pixels = b"".join(noise(row) for _ in range(h))
    pal = noise(4 * palette)
    offset = 14 + 40 + len(pal)
    header = b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bpp, 0, len(pixels),
                       2835, 2835, palette, 0)
    return header + info + pal + pixels


def tga(w, h, kind, bpp, rle=False):
    image_type = {"gray": 3, "rgb": 2, "mapped": 1}[kind] + (8 if rle else 0)
    cmap = kind == "mapped"
    header = struct.pack("<BBBHHBHHHHBB", 0, 1 if cmap else 0, image_type, 0, 16 if cmap else 0,
                         24 if cmap else 0, 0, 0, w, h, bpp, 0x20)
    body = noise(16 * 3) if cmap else b""
    px = bpp // 8
    if rle:
        left = w * h
        while left:
            n = min(left, rng.randrange(1, 9))
            if rng.random() < 0.5:
                body += bytes([0x80 | (n - 1)]) + noise(px)
            else:
                body += bytes([n - 1]) + noise(n * px)
            left -= n
    else:
        body += noise(w * h * px)
    return header + body


def hdr(w, h, rle):
    head = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n" + f"-Y {h} +X {w}\n".encode()
    body = b""
    for _ in range(h):
        if rle:  # new-style run-length rows: 2 2 w_hi w_lo, then four component planes
            body += bytes([2, 2, w >> 8, w & 255])
            for _ in range(4):
                body += bytes([0x80 | w, rng.randrange(256)])
        else:
            body += noise(4 * w)
    return head + body


def pfm(w, h, channels, little=True):
    fmt = ("<" if little else ">") + "f" * (w * h * channels)
    data = struct.pack(fmt, *[rng.uniform(-2, 2) for _ in range(w * h * channels)])
    return f"{'PF' if channels == 3 else 'Pf'}\n{w} {h}\n{-1.0 if little else 1.0}\n".encode() + data


# ---- JPEG through ffmpeg -----------------------------------------------------------------------

def ffmpeg_jpeg(w, h, pix_fmt):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f.jpg")
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                        f"testsrc2=size={w}x{h}:rate=1", "-frames:v", "1", "-pix_fmt", pix_fmt,
                        "-huffman", "default", "-q:v", "8", "-y", path], check=True)
        with open(path, "rb") as f:
            return f.read()


def strip_dht(jpeg):
    """The frame without its DHT segments (FF C4): the MJPEG convention of webcams."""
    i, outb = 2, bytearray(jpeg[:2])
    while i + 4 <= len(jpeg) and jpeg[i] == 0xFF:
        marker, length = jpeg[i + 1], struct.unpack(">H", jpeg[i + 2:i + 4])[0]
        if marker == 0xDA:
            outb += jpeg[i:]
            return bytes(outb)
        if marker != 0xC4:
            outb += jpeg[i:i + 2 + length]
        i += 2 + length
    return bytes(outb)


def main():
    t = "image_reader"
    out(t, "gray8.png", png(5, 3, 0, 8))
    out(t, "gray1.png", png(9, 2, 0, 1))
    out(t, "gray16.png", png(3, 3, 0, 16))
    out(t, "rgb8.png", png(4, 3, 2, 8))
    out(t, "rgb16.png", png(2, 2, 2, 16))
    out(t, "palette4.png", png(7, 3, 3, 4, palette=16))
    out(t, "gray-alpha.png", png(3, 2, 4, 8))
    out(t, "rgba8-interlaced.png", png(9, 9, 6, 8, interlace=True))
    out(t, "rgba16.png", png(2, 3, 6, 16))
    out(t, "rgb24.bmp", bmp(5, 3, 24))
    out(t, "rgba32-top-down.bmp", bmp(3, 2, 32, top_down=True))
    out(t, "palette8.bmp", bmp(6, 2, 8, palette=8))
    out(t, "palette1.bmp", bmp(17, 2, 1, palette=2))
    out(t, "rgb24.tga", tga(4, 3, "rgb", 24))
    out(t, "rgba32-rle.tga", tga(6, 3, "rgb", 32, rle=True))
    out(t, "gray8-rle.tga", tga(5, 2, "gray", 8, rle=True))
    out(t, "mapped.tga", tga(3, 3, "mapped", 8))
    out(t, "flat.hdr", hdr(4, 2, rle=False))
    out(t, "rle.hdr", hdr(9, 2, rle=True))
    out(t, "gray-le.pfm", pfm(3, 2, 1))
    out(t, "rgb-le.pfm", pfm(2, 2, 3))
    out(t, "rgb-be.pfm", pfm(3, 1, 3, little=False))
    for name, fmt in [("yuv420", "yuvj420p"), ("yuv422", "yuvj422p"), ("yuv444", "yuvj444p"),
                      ("gray", "gray")]:
        jpeg = ffmpeg_jpeg(24, 16, fmt)
        out(t, f"{name}.jpg", jpeg)
        out("camera_mjpeg", f"{name}.jpg", jpeg)
        out("camera_mjpeg", f"{name}-no-dht.jpg", strip_dht(jpeg))

    # YUYV and NV12: six bytes of size, padding and encoding (see camera_yuv.cpp), then the
    # buffer.
    for w, h, pad in [(4, 2, 0), (5, 3, 4), (16, 1, 0)]:
        stride = (w + 1) // 2 * 4 + pad
        head = struct.pack("<HHBB", w - 1, h - 1, pad, 0)
        out("camera_yuv", f"{w}x{h}-pad{pad}.yuyv", head + noise(stride * h))
    for w, h, pad in [(4, 2, 0), (5, 3, 2), (7, 5, 0)]:
        stride = (w + 1) // 2 * 2 + pad
        head = struct.pack("<HHBB", w - 1, h - 1, pad, 1)
        out("camera_yuv", f"{w}x{h}-pad{pad}.nv12", head + noise(stride * (h + (h + 1) // 2)))

    # Presets: every key, of every type (the shipped presets are added by scripts/fuzz.sh).
    out("preset_reader", "everything.json", """{
  "name": "all", "description": "every key",
  "filter": {"kind": "edge-aware", "sigma": 12.5, "order": 4, "pole": -0.5, "ext": "repeat",
             "sigma_r": 0.25, "kappa": 2, "iterations": 3, "algo": "exact", "backend": "cpu"},
  "view": {"mode": "impulse", "split": 0.3, "diff_scale": "linear", "amplification": 10,
           "tiles_show_result": true, "profile_vertical": true, "profile_line": 7,
           "probe": [3, 4]},
  "diff": {"truth": "padded", "truth_ext": "clamp", "auto_band": false, "band": 5},
  "source": {"pattern": "steps"}
}
""")
    out("preset_reader", "minimal.json", '{"filter": {"sigma": 2}}\n')
    out("preset_reader", "sources.json",
        '{"source": {"image": "a.png", "folder": "f", "video": "v.mp4", "camera": "/dev/video0"}}')

    # Command lines: one token per line.
    cli = {
        "filter.txt": "filter\nin.png\nout.png\n--filter\ngaussian\n--sigma\n8\n--order\n3\n"
                      "--ext\nmirror\n--backend\ncpu",
        "edge.txt": "filter\nin.png\nout.pfm\n--filter\nedge-aware\n--sigma\n20\n--sigma-r\n"
                    "0.3\n--iterations\n3\n--algo\nexact",
        "truth.txt": "truth\nin.png\nt.pfm\n--filter=exp\n--pole\n0.8\n--ext\nclamp",
        "coeffs.txt": "coeffs\n--filter\nbspline5\n--json",
        "coeffs-deriche.txt": "coeffs\n--filter\nderiche\n--order\n4\n--sigma\n3",
        "diff.txt": "diff\na.pfm\nb.pfm\n--sigma\n8\n--json",
        "bench.txt": "bench\n--sizes\n1024,4096\n--orders\n1,3\n--ext\nmirror\n--channels\n1,4\n"
                     "--iterations\n20\n--filters\nedge-aware\n--no-hd",
        "edge-study.txt": "edge-study\na.png\n--pairs\n50:50\n--kappa-max\n3\n--kappa-step\n0.5",
        "lee.txt": "lee-bench\n--sizes\n512x512,1920x1080\n--channels\n4",
        "lee-table.txt": "lee-table\n--images\na.png\n--windows\n3,30\n--fir\nwindow",
        "help.txt": "filter\n--help",
    }
    for name, text in cli.items():
        out("rfcli_args", name, text)
    studio = {
        "pattern.txt": "--pattern\nsteps\n--ext\nignore\n--view\ndiff\n--sigma\n8",
        "image.txt": "--image\nphoto.jpg\n--view\ntiles\n--ext\nrepeat\n--pattern-size\n64x32",
        "offscreen.txt": "--offscreen\n--frames\n3\n--screenshot\nout.png\n--view\nprofile\n"
                         "--truth\npadded\n--truth-ext\nclamp\n--split\n0.25\n--amplify\n4",
        "preset.txt": "--preset\nassets/presets/border-artifacts.json\n--sigma\n3",
        "edge.txt": "--filter\nedge-aware\n--sigma-r\n0.2\n--iterations\n2\n--algo\nc\n--kappa\n3",
    }
    for name, text in studio.items():
        out("rfstudio_args", name, text)


if __name__ == "__main__":
    main()
