#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hang-dump.py MONITOR LOG [SYSTEM_MAP]: where a guest that stopped answering is.

Run by tests/lib/boot.sh when a boot reaches its deadline, before QEMU is
killed. Asks QEMU's human monitor (the unix socket MONITOR) for every vCPU's
registers three times, a second apart, and prints one line a vCPU and sample:
its program counter, and the kernel symbol it falls in, from SYSTEM_MAP moved
by the KASLR offset that the guest's /init wrote to LOG ("@@KVMCHURN TEXT
<address of _text>"). The same PC in every sample is a vCPU that spins; one
that moves is a guest that still runs, only too slowly. The whole register
dump goes to LOG.hang. Exit status 0 when the monitor answered, 1 if not.
"""
import bisect
import re
import socket
import sys
import time


def monitor(path, cmds):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    out = []

    def until_prompt():
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        return buf.decode("utf-8", "replace")

    until_prompt()
    for c in cmds:
        s.sendall(c.encode() + b"\n")
        out.append(until_prompt())
    s.close()
    return out


def symbols(path, log):
    if not path:
        return None
    text_run = text_map = None
    try:
        with open(log, "rb") as f:
            for line in f:
                m = re.search(rb"@@KVMCHURN TEXT ([0-9a-f]+)", line)
                if m:
                    text_run = int(m.group(1), 16)
        addrs, names = [], []
        with open(path) as f:
            for line in f:
                a, t, n = line.split()[:3]
                if t.lower() in ("t", "w"):
                    addrs.append(int(a, 16))
                    names.append(n)
                if n == "_text":
                    text_map = int(a, 16)
    except (OSError, ValueError):
        return None
    if text_run is None or text_map is None:
        return None
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return ([addrs[i] for i in order], [names[i] for i in order], text_run - text_map)


def where(pc, syms):
    if not syms:
        return ""
    addrs, names, off = syms
    a = pc - off
    i = bisect.bisect_right(addrs, a) - 1
    if i < 0 or a - addrs[i] > 0x100000:
        return " (not kernel text: a module, or user space)"
    return " %s+0x%x" % (names[i], a - addrs[i])


def main():
    if len(sys.argv) < 3:
        print("usage: hang-dump.py MONITOR LOG [SYSTEM_MAP]", file=sys.stderr)
        return 2
    mon, log = sys.argv[1], sys.argv[2]
    syms = symbols(sys.argv[3] if len(sys.argv) > 3 else "", log)
    full = []
    try:
        for n in range(3):
            if n:
                time.sleep(1)
            cpus, regs = monitor(mon, ["info cpus", "info registers -a"])
            full.append(cpus + regs)
            cpu = 0
            for line in regs.splitlines():
                m = re.match(r"CPU#(\d+)", line)
                if m:
                    cpu = int(m.group(1))
                m = re.search(r"\b(?:RIP|EIP|PC)=([0-9a-f]+)", line)
                if m:
                    pc = int(m.group(1), 16)
                    print("sample %d vCPU %d: pc %016x%s" % (n + 1, cpu, pc, where(pc, syms)))
    except OSError as e:
        print("the monitor did not answer: %s" % e)
        return 1
    finally:
        with open(log + ".hang", "w") as f:
            f.write("\n".join(full))
    return 0


if __name__ == "__main__":
    sys.exit(main())
