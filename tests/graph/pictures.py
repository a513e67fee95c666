"""Checking rendered pictures: SVG structure (nodes and edges by their titles) and a raster
made by a real renderer (rsvg-convert) that is not blank."""

from __future__ import annotations

import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

from tests.conftest import skip_or_fail

SVG = "{http://www.w3.org/2000/svg}"


def need(program: str, package: str) -> str:
    found = shutil.which(program)
    if found is None:
        skip_or_fail(f"{program} is not installed ({package}, scripts/system-packages.txt)")
        raise AssertionError("unreachable")
    return found


def svg_titles(svg_text: str) -> tuple[list[str], list[str]]:
    """The titles of the node groups and of the edge groups Graphviz wrote."""
    root = ET.fromstring(svg_text)
    nodes: list[str] = []
    edges: list[str] = []
    for group in root.iter(f"{SVG}g"):
        title = group.find(f"{SVG}title")
        if title is None or title.text is None:
            continue
        if group.get("class") == "node":
            nodes.append(title.text)
        elif group.get("class") == "edge":
            edges.append(title.text)
    return nodes, edges


def rasterize(svg_path: Path, png_path: Path) -> None:
    program = need("rsvg-convert", "librsvg2-bin")
    subprocess.run([program, "-b", "white", "-o", str(png_path), str(svg_path)], check=True, timeout=120)


def png_ink(png_path: Path) -> tuple[int, int, int]:
    """(width, height, pixels that are not white) of an 8-bit RGB/RGBA PNG."""
    data = png_path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and color in (2, 6), (depth, color)
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    ink = 0
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 255
        for x in range(width):
            r, g, b = line[x * channels : x * channels + 3]
            if r < 200 or g < 200 or b < 200:
                ink += 1
        previous = line
    return width, height, ink
