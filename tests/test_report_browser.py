"""Render a report in headless Chromium: it must paint something and log no console error.

Chromium prints every console message (script errors and Content-Security-Policy
violations included: the report allows no script and no network) as a
``:CONSOLE`` log line on stderr with ``--enable-logging=stderr``.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from scrapy_declutter import extract
from scrapy_declutter.report import render_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is absent (`apt-get install chromium`; .ci/run installs it)"
)
#: The header and the first charts; small, so the pure-Python PNG decode is quick.
WINDOW = (900, 700)


def png_pixels(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """Decode an 8-bit, non-interlaced PNG: (width, height, bytes per pixel, unfiltered rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat.append(chunk)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and interlace == 0, header
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw, stride, rows = zlib.decompress(b"".join(idat)), width * bpp, []
    prev = bytearray(stride)
    for y in range(height):
        at = y * (stride + 1)
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def render(html_path: Path, tmp_path: Path) -> tuple[bytes, str]:
    shot = tmp_path / "shot.png"
    cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--enable-logging=stderr", "--v=0", f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={shot}", f"--window-size={WINDOW[0]},{WINDOW[1]}", html_path.as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert shot.is_file(), f"no screenshot; exit {proc.returncode}: {proc.stderr[-2000:]}"
    return shot.read_bytes(), proc.stderr


def test_report_renders_in_chromium_without_console_errors(tmp_path, wcxb):
    html, truth = wcxb("4297")
    result = extract(html, truth["url"], extractor="density")
    for b in result.blocks:  # an extra panel, as ``inspect --store`` adds
        b.ngram_log_odds = b.score - 0.5
    report = tmp_path / "report.html"
    report.write_text(render_report(result), encoding="utf-8")
    png, log = render(report, tmp_path)

    console = [line for line in log.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
    assert console == [], console
    width, height, bpp, rows = png_pixels(png)
    assert (width, height) == WINDOW
    step = max(1, height // 200)
    pixels = {row[i:i + 3] for row in rows[::step] for i in range(0, width * bpp, bpp * 4)}
    assert len(pixels) > 20, "screenshot is (nearly) one colour"
    # The chart colours are on screen: content red and boilerplate blue bars.
    assert any(p[0] > 150 and p[1] < 80 and p[2] < 80 for p in pixels), "no content-red pixels"
    assert any(p[2] > 150 and p[0] < 80 for p in pixels), "no boilerplate-blue pixels"


def test_console_errors_would_be_caught(tmp_path):
    """The check above can fail: a page breaking the report's CSP logs a console line."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta http-equiv='Content-Security-Policy' "
        "content=\"default-src 'none'\"></head><body><p>x</p><script>1</script></body></html>"
    )
    _, log = render(page, tmp_path)
    assert any(":CONSOLE" in line for line in log.splitlines())
