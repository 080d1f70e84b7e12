#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What Chromium made of an SVG of `kvmchurn plot`, against the numbers it drew.

check.py png PNG SVG
    The screenshot: its size is the SVG's width and height, its four corners
    are the SVG's paper (so the picture fills it exactly), and it is not
    blank: ink covers a share of it, in many colours.
check.py dom DUMP SVG [--vms JSON] [--summary JSON] [--diff JSON]
    DUMP is Chromium's --dump-dom of the page that measure.js measured: the
    page drew at the SVG's size; for a timeline (with `vms --json`) one row
    a VM, in order, each window's parts, measured by the browser's layout,
    as wide as the window's time at its lane's scale within a pixel, the
    parts drawn those that took time, and a legend entry and a label for
    every part present; for histograms (`summary --json`) a panel for each
    metric with data, whose buckets hold its count, with 3 percentiles;
    for a comparison (`diff --json`) a row for each metric either side has,
    with a bar for each side's p50 and p99.
Exit status 0, or 1 with each problem on a line of its own.
"""
import html
import json
import re
import struct
import sys
import zlib

PAPER = (0xFC, 0xFC, 0xFA)
UNIT_NS = {"ns": 1, "us": 1000, "ms": 1000000}
problems = []


def problem(text):
    problems.append(text)


def svg_size(path):
    with open(path, encoding="utf-8") as f:
        head = f.read(4096)
    m = re.search(r'<svg [^>]*width="([0-9.]+)" height="([0-9.]+)"', head)
    if not m:
        sys.exit(f"{path}: no <svg width= height=>")
    return float(m.group(1)), float(m.group(2))


def png_pixels(path):
    """Width, height and rows of RGB(A) tuples of an 8-bit, non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = ihdr
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        sys.exit(f"{path}: a PNG this checker does not decode (depth {depth}, colour {colour})")
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, channels, rows


def check_png(png, svg):
    want_w, want_h = svg_size(svg)
    width, height, ch, rows = png_pixels(png)
    if (width, height) != (int(want_w), int(want_h)):
        problem(f"{png}: {width}x{height}, the SVG says {want_w:g}x{want_h:g}")
    for x, y in ((0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1)):
        px = tuple(rows[y][x * ch:x * ch + 3])
        if px != PAPER:
            problem(f"{png}: corner ({x}, {y}) is {px}, not the paper {PAPER}: the picture does not fill it")
    ink, colours = 0, set()
    for y in range(0, height, 2):
        line = rows[y]
        for x in range(0, width * ch, 2 * ch):
            px = bytes(line[x:x + 3])
            colours.add(px)
            if px != bytes(PAPER):
                ink += 1
    share = ink / ((height + 1) // 2 * ((width + 1) // 2))
    if share < 0.02 or len(colours) < 16:
        problem(f"{png}: blank: {share:.1%} ink in {len(colours)} colours")
    return f"{width}x{height}, {share:.0%} ink, {len(colours)} colours"


def measured(dump):
    with open(dump, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<pre[^>]* id="kc-result"[^>]*>(\{.*?)</pre>', text, re.S)
    if not m:
        sys.exit(f"{dump}: no measurement: the page did not load, or its script failed")
    return json.loads(html.unescape(m.group(1)))


def check_timeline(got, vms):
    unit = UNIT_NS[vms["unit"]]
    lanes = got.get("lanes", {})
    if len(got["vms"]) != len(vms["vms"]):
        problem(f"{len(got['vms'])} rows, {len(vms['vms'])} VMs")
    present = set()
    for row, vm in zip(got["vms"], vms["vms"]):
        if row["tgid"] != str(vm["tgid"]):
            problem(f"row of pid {row['tgid']} where pid {vm['tgid']} comes")
        want = {}
        for name in ("startup", "teardown"):
            w = vm[name]
            if w is None:
                continue
            took = [p["part"] for p in w["parts"] if p["duration"]]
            present.update(took)
            want[name] = (w["window"], sorted(took))
        seen = set()
        for win in row["windows"]:
            name, lane = win["window"], win["lane"]
            seen.add((lane, name))
            if name not in want:
                problem(f"pid {vm['tgid']}: a {name} window drawn that vms --json has not")
                continue
            whole, parts = want[name]
            if win["sum"] != whole:
                problem(f"pid {vm['tgid']} {name}: {win['sum']} drawn, the window is {whole}")
            width = whole * unit * lanes[lane]
            if abs(win["drawn"] - width) > 1:
                problem(f"pid {vm['tgid']} {name} in lane {lane}: parts {win['drawn']:.3f} px wide, "
                        f"the window {width:.3f} px")
            if sorted(win["parts"]) != parts:
                problem(f"pid {vm['tgid']} {name}: parts {sorted(win['parts'])}, vms --json {parts}")
        for name in want:
            for lane in ("clock", name):
                if (lane, name) not in seen:
                    problem(f"pid {vm['tgid']}: its {name} is not drawn in lane {lane}")
    if sorted(got["legend"]) != sorted(present):
        problem(f"legend {sorted(got['legend'])}, parts present {sorted(present)}")
    for part in present:
        if part not in got["text"]:
            problem(f"the label {part} is nowhere in the page")
    return f"{len(got['vms'])} rows, {len(present)} parts"


def check_hists(got, summary):
    want = [m for m in summary["metrics"] if m["count"]]
    names = [h["metric"] for h in got["hists"]]
    if sorted(names) != sorted(m["name"] for m in want):
        problem(f"panels {names}, metrics with data {[m['name'] for m in want]}")
    by = {h["metric"]: h for h in got["hists"]}
    for m in want:
        h = by.get(m["name"])
        if not h:
            continue
        if h["count"] != m["count"] or h["buckets"] != m["count"]:
            problem(f"{m['name']}: count {h['count']}, buckets hold {h['buckets']}, summary {m['count']}")
        if h["pcts"] != 3:
            problem(f"{m['name']}: {h['pcts']} percentiles marked")
        if m["name"] not in got["text"]:
            problem(f"the label {m['name']} is nowhere in the page")
    return f"{len(want)} panels"


def check_compare(got, diff):
    want = {}
    for m in diff["metrics"]:
        sides = sum(1 for s in ("a", "b") if m[s]["count"])
        if sides:
            want[m["name"]] = 2 * sides
    have = {m["metric"]: m["bars"] for m in got["metrics"]}
    if have != want:
        problem(f"metrics and bars {have}, diff --json says {want}")
    return f"{len(want)} metrics"


def main(argv):
    if len(argv) >= 3 and argv[0] == "png":
        said = check_png(argv[1], argv[2])
    elif len(argv) >= 3 and argv[0] == "dom":
        got = measured(argv[1])
        want_w, want_h = svg_size(argv[2])
        if (got["width"], got["height"]) != (want_w, want_h):
            problem(f"drawn {got['width']}x{got['height']}, the SVG says {want_w:g}x{want_h:g}")
        said = "drawn"
        opts = dict(zip(argv[3::2], argv[4::2]))
        for opt, fn in (("--vms", check_timeline), ("--summary", check_hists), ("--diff", check_compare)):
            if opt in opts:
                with open(opts[opt], encoding="utf-8") as f:
                    said = fn(got, json.load(f))
    else:
        sys.exit(__doc__)
    for p in problems:
        print(p)
    if not problems:
        print(said)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
