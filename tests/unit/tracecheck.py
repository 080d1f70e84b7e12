#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tracecheck.py TRACE VMS: `kvmchurn vms --trace-event` against `vms --json`.

The format's required fields (Chrome's Trace Event Format: every event has
name, ph, pid and tid; a complete event ts and dur, numbers, dur >= 0; an
instant ts and a scope; metadata args), then the numbers, exactly: a
process a VM in order, named by the VMM's name and pid; each window a
complete event at its start (created, or the teardown's began, from t0)
as long as the window; its parts the ones that took time, each as long as
vms --json says, laid end to end inside it; the parent's notification and
the reap at their offsets. Times are compared in integer nanoseconds.
Exit 0, or 1 with each problem on a line.
"""
import json
import sys
from decimal import Decimal

UNIT_NS = {"ns": 1, "us": 1000, "ms": 1000000}


def ns(micros):
    """A trace time (microseconds, 3 decimals) in integer ns, exactly."""
    return int(Decimal(repr(micros)) * 1000)


def epoch_ns(text):
    sec, frac = text.split(".")
    return int(sec) * 10**9 + int(frac)


def main(trace_path, vms_path):
    problems = []
    with open(trace_path, encoding="utf-8") as f:
        trace = json.load(f)
    with open(vms_path, encoding="utf-8") as f:
        vms = json.load(f)
    unit = UNIT_NS[vms["unit"]]
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        return ["no traceEvents array"]
    for e in events:
        for key in ("name", "ph", "pid", "tid"):
            if key not in e:
                problems.append(f"an event without {key}: {e}")
        if e.get("ph") == "X" and not all(isinstance(e.get(k), (int, float)) for k in ("ts", "dur")):
            problems.append(f"a complete event without numbers ts and dur: {e}")
        if e.get("ph") == "X" and e.get("dur", 0) < 0:
            problems.append(f"a negative duration: {e}")
        if e.get("ph") == "i" and ("ts" not in e or e.get("s") not in ("g", "p", "t")):
            problems.append(f"an instant without ts or scope: {e}")
        if e.get("ph") == "M" and "args" not in e:
            problems.append(f"metadata without args: {e}")
        if e.get("ph") not in ("X", "i", "M"):
            problems.append(f"a phase this writer does not use: {e}")
    if problems:
        return problems
    if trace["otherData"]["unit"] != vms["unit"]:
        problems.append(f"unit {trace['otherData']['unit']}, vms --json {vms['unit']}")
    t0 = epoch_ns(trace["otherData"]["t0"]) if vms["vms"] else 0
    if vms["vms"] and t0 != min(epoch_ns(v["created"]) for v in vms["vms"]):
        problems.append("t0 is not the first VM's creation")
    pids = sorted({e["pid"] for e in events})
    if pids != list(range(1, len(vms["vms"]) + 1)):
        problems.append(f"processes {pids}, {len(vms['vms'])} VMs")
    for pid, vm in enumerate(vms["vms"], 1):
        mine = [e for e in events if e["pid"] == pid]
        names = [e["args"]["name"] for e in mine if e["name"] == "process_name"]
        if names != [f"{vm['comm']} {vm['tgid']} (VM {pid})"]:
            problems.append(f"VM {pid}: process name {names}")
        for win, start in (("startup", epoch_ns(vm["created"])),
                           ("teardown", vm["teardown"] and epoch_ns(vm["teardown"]["began"]))):
            w = vm[win]
            got = [e for e in mine if e["ph"] == "X" and e["name"] == win and e.get("cat") == "window"]
            if w is None:
                # a window with a time but no partition is still a window
                stage = vm["stages"][win]
                want = 1 if stage and (win == "startup" or vm["teardown"]) else 0
                if len(got) != want:
                    problems.append(f"VM {pid}: {len(got)} {win} windows, want {want}")
                continue
            if len(got) != 1:
                problems.append(f"VM {pid}: {len(got)} {win} windows")
                continue
            ts, dur = ns(got[0]["ts"]), ns(got[0]["dur"])
            if ts != start - t0 or dur != w["window"] * unit:
                problems.append(f"VM {pid} {win}: at {ts} for {dur} ns, want {start - t0} for {w['window'] * unit}")
            parts = sorted((ns(e["ts"]), ns(e["dur"]), e["name"]) for e in mine
                           if e["ph"] == "X" and e.get("cat") == win)
            want = sorted((p["part"], p["duration"] * unit) for p in w["parts"] if p["duration"])
            if sorted((n, d) for _, d, n in parts) != want:
                problems.append(f"VM {pid} {win}: parts {[(n, d) for _, d, n in parts]}, want {want}")
            at = ts
            for pts, pdur, name in parts:
                if pts != at:
                    problems.append(f"VM {pid} {win}: {name} at {pts}, the part before ends at {at}")
                at = pts + pdur
            if parts and at != ts + dur:
                problems.append(f"VM {pid} {win}: the parts end at {at}, the window at {ts + dur}")
        td = vm["teardown"]
        for name, key in (("parent notified", "notified"), ("reaped", "reaped")):
            got = [ns(e["ts"]) for e in mine if e["ph"] == "i" and e["name"] == name]
            want = [] if not td or td[key] is None else [epoch_ns(td["began"]) - t0 + td[key] * unit]
            if got != want:
                problems.append(f"VM {pid}: {name} at {got}, want {want}")
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    found = main(sys.argv[1], sys.argv[2])
    for p in found:
        print(p)
    sys.exit(1 if found else 0)
