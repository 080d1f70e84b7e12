#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The prometheus tier's side of HTTP and of the numbers (tests/prometheus/tier.sh):
node_exporter's /metrics and Prometheus' HTTP API, read with urllib on the loopback
(no proxy, whatever the environment says), and their answers set against kvmchurn's.

  prom.py ports N                       N free TCP ports on 127.0.0.1
  prom.py fetch FILE=URL...             each URL's body into its FILE
  prom.py scraped BASE N                exit 0 when `up` is 1 for N targets, and print
                                        the time of that answer (PROM_AT, below)
  prom.py targets BASE                  each target's health and last error
  prom.py quantiles BASE INSTANCE SUMMARY_JSON OUT [INSTANCE SUMMARY_JSON OUT]...
        histogram_quantile(0.5|0.9|0.99) of INSTANCE's kvmchurn_duration_seconds
        against `kvmchurn summary --json`'s p50/p90/p99 (SUMMARY_JSON): both in the
        same power-of-two bucket, for every metric with data (a value past export's
        last finite le: Prometheus answers that le); _count and _sum equal. The
        report in OUT, 0 or 1 in OUT.rc, for each INSTANCE
  prom.py summed BASE INSTANCES EXPORT  sum by (le, metric) of the buckets (and _count)
        of INSTANCES (host:port,...) against EXPORT, the textfile of kvmchurn merge
  prom.py rules BASE GROUP              every rule of GROUP loaded, evaluated, healthy
  prom.py alert BASE NAME INSTANCE      ALERTS{alertname=NAME} is there for INSTANCE
  prom.py value BASE EXPR               the value of EXPR's one series (none: empty)
  prom.py wait SECONDS COMMAND ARGS...  COMMAND (scraped, rules, alert) again every 0.1 s
                                        until it succeeds, at most SECONDS: an event
                                        waited for, not a time; its last output

The comparing commands print a table or what differs; exit 1 when something does.
quantiles, summed and value ask at the time PROM_AT (seconds since the epoch) when it
is set: that of the answer of scraped, when every target's last scrape had succeeded,
so that a later scrape that fails (a busy host), whose series Prometheus then marks
stale, changes nothing.
"""
import contextlib
import io
import json
import math
import os
import re
import socket
import sys
import time
import urllib.parse
import urllib.request

# no proxy: nothing leaves the loopback
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
QUANTILES = ((0.5, 'p50'), (0.9, 'p90'), (0.99, 'p99'))
UNIT_NS = {'us': 1000, 'ns': 1}
# export's last finite le, in units: 2^36 us, 2^46 ns (19 h); above, +Inf
LAST_LE = {'us': 36, 'ns': 46}
AT = os.environ.get('PROM_AT')


def get(url, timeout=10):
    with OPENER.open(url, timeout=timeout) as r:
        return r.read().decode()


def api(base, path, **params):
    url = base + path + ('?' + urllib.parse.urlencode(params) if params else '')
    d = json.loads(get(url))
    if d.get('status') != 'success':
        raise RuntimeError('%s: %s' % (url, d))
    return d['data']


def query(base, expr, at=None):
    """The instant vector of expr at the time at (default: now), as [(labels, value string)]."""
    params = {'query': expr}
    if at:
        params['time'] = at
    data = api(base, '/api/v1/query', **params)
    if data['resultType'] != 'vector':
        raise RuntimeError('%s: a %s, not a vector' % (expr, data['resultType']))
    return [(r['metric'], r['value'][1]) for r in data['result']]


def bucket_of_units(v):
    """kvmchurn's power-of-two bucket of an integer value of units: j holds [2^(j-1), 2^j),
    0 holds 0 (le = 2^j units in the export)."""
    return 0 if v == 0 else int(v).bit_length()


def bucket_of_prom(u):
    """The bucket Prometheus interpolated u (units, a float) in: (2^(j-1), 2^j], the
    first bucket [0, 1]; a relative 1e-9 for le printed in decimal seconds."""
    j = 0
    while u > (1 << j) * (1 + 1e-9):
        j += 1
    return j


def fmt(u):
    return '%.1f' % u if u < 1e6 else '%.4g' % u


def cmd_ports(n):
    socks = [socket.socket() for _ in range(int(n))]
    for so in socks:  # held together: N different ports
        so.bind(('127.0.0.1', 0))
    for so in socks:
        print(so.getsockname()[1])
        so.close()
    return 0


def cmd_fetch(*pairs):
    for pair in pairs:
        path, url = pair.split('=', 1)
        with open(path, 'w') as f:
            f.write(get(url))
    return 0


def cmd_scraped(base, n):
    try:
        data = api(base, '/api/v1/query', query='up == 1')
    except Exception:  # not ready yet: refused, 503
        return 1
    if len(data['result']) != int(n):
        return 1
    print(data['result'][0]['value'][0])
    return 0


def cmd_targets(base):
    for t in api(base, '/api/v1/targets')['activeTargets']:
        print('%s %s %s' % (t['scrapeUrl'], t['health'], t.get('lastError') or ''))
    return 0


def cmd_quantiles(base, *triples):
    for i in range(0, len(triples), 3):
        instance, summary_json, out = triples[i:i + 3]
        lines = []
        try:
            rc = quantiles(base, instance, summary_json, lines)
        except Exception as e:  # Prometheus' answer, or the summary, not as expected
            lines.append('error: %r' % e)
            rc = 1
        with open(out, 'w') as f:
            f.writelines(line + '\n' for line in lines)
        with open(out + '.rc', 'w') as f:
            f.write('%d\n' % rc)
    return 0


def quantiles(base, instance, summary_json, out):
    with open(summary_json) as f:
        summary = json.load(f)
    unit = summary['unit']
    unit_s = UNIT_NS[unit] / 1e9  # as the client computes it
    sel = 'kvmchurn_duration_seconds_%%s{instance="%s"}' % instance
    got = {}
    for q, name in QUANTILES:
        for labels, v in query(base, 'histogram_quantile(%g, %s)' % (q, sel % 'bucket'), AT):
            got[(labels['metric'], name)] = float(v) / unit_s
    counts = {m['metric']: v for m, v in query(base, sel % 'count', AT)}
    sums = {m['metric']: v for m, v in query(base, sel % 'sum', AT)}
    bad, rows = [], 0
    table = ['%-24s %6s  %s' % ('metric', 'count', '  '.join(
        '%9s %11s %6s' % (n, 'PromQL ' + n, 'le') for _, n in QUANTILES)) + '  (%s)' % unit]
    for m in summary['metrics']:
        name, count = m['name'], m['count']
        if counts.get(name) != str(count):
            bad.append('%s: _count %s, summary %d' % (name, counts.get(name), count))
        # _sum in seconds: the same double as export's (sum * unit_s), read back exactly
        if name not in sums or float(sums[name]) != m['sum'] * unit_s:
            bad.append('%s: _sum %s s, summary %d %s (%r s)' % (name, sums.get(name), m['sum'],
                                                              unit, m['sum'] * unit_s))
        if not count:
            continue
        cells = []
        for _, pn in QUANTILES:
            mine, theirs = m[pn], got.get((name, pn), math.nan)
            kj, pj = bucket_of_units(mine), bucket_of_prom(theirs)
            cells.append('%9d %11s %6s' % (mine, fmt(theirs), '2^%d' % kj))
            # in the +Inf bucket, histogram_quantile returns the last finite le
            if math.isnan(theirs) or min(kj, LAST_LE[unit]) != pj:
                bad.append('%s %s: summary %d %s in the bucket le=2^%d, PromQL %s %s in le=2^%d'
                           % (name, pn, mine, unit, kj, fmt(theirs), unit, pj))
        table.append('%-24s %6d  %s' % (name, count, '  '.join(cells)))
        rows += 1
    if not rows:
        bad.append('no metric with data')
    # what differs first, then the table
    out.extend(['differs: ' + b for b in bad] + table)
    return 1 if bad else 0


def parse_export(path):
    """name{labels} value lines of a textfile, as {(name, frozenset(labels)): value}."""
    out = {}
    line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            m = line_re.match(line.rstrip('\n'))
            if not m:
                raise ValueError('%s: %r' % (path, line))
            labels = frozenset(re.findall(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"', m.group(2) or ''))
            out[(m.group(1), labels)] = m.group(3)
    return out


def cmd_summed(base, instances, export):
    want = parse_export(export)
    # a regular expression of RE2 in a PromQL string: its backslashes doubled
    regex = '|'.join(re.escape(i) for i in instances.split(',')).replace('\\', '\\\\')
    bad, n = [], 0
    for family, by in (('bucket', 'le, metric'), ('count', 'metric')):
        name = 'kvmchurn_duration_seconds_' + family
        got = {frozenset(labels.items()): v
               for labels, v in query(base, 'sum by (%s) (%s{instance=~"%s"})' % (by, name, regex), AT)}
        mine = {labels: v for (nm, labels), v in want.items() if nm == name}
        for labels in sorted(set(got) | set(mine), key=sorted):
            n += 1
            g, w = got.get(labels), mine.get(labels)
            # integers, exact in a float64 well past any count here
            if g is None or w is None or float(g) != float(w):
                bad.append('%s%s: PromQL %s, merge %s' % (name, dict(sorted(labels)), g, w))
    for b in bad[:40]:
        print('differs: ' + b)
    print('%d series of sum by (le, metric) and sum by (metric) compared' % n)
    return 1 if bad or not n else 0


def cmd_rules(base, group):
    groups = [g for g in api(base, '/api/v1/rules')['groups'] if g['name'] == group]
    if not groups:
        print('no rule group %s' % group)
        return 1
    bad = 0
    for r in groups[0]['rules']:
        evaluated = not r.get('lastEvaluation', '').startswith('0001-')
        print('%s %s %s%s' % (r['type'], r['name'], r['health'],
                              '' if evaluated else ' (not evaluated yet)'))
        bad += r['health'] != 'ok' or not evaluated
    return 1 if bad else 0


def cmd_alert(base, name, instance):
    try:
        got = query(base, 'ALERTS{alertname="%s",instance="%s"}' % (name, instance))
    except Exception:
        return 1
    for labels, _ in got:
        print('%s %s' % (name, labels.get('alertstate')))
    return 0 if got else 1


def cmd_value(base, expr):
    got = query(base, expr, AT)
    print(got[0][1] if len(got) == 1 else 'none' if not got else '%d series' % len(got))
    return 0


def cmd_wait(seconds, name, *args):
    end = time.monotonic() + float(seconds)
    while True:
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                rc = CMDS[name](*args)
        except Exception as e:  # not up yet: refused, 503
            rc = 1
            out.write('%s\n' % e)
        if rc == 0 or time.monotonic() >= end:
            sys.stdout.write(out.getvalue())
            return rc
        time.sleep(0.1)


CMDS = {'ports': cmd_ports, 'fetch': cmd_fetch, 'scraped': cmd_scraped,
        'targets': cmd_targets, 'quantiles': cmd_quantiles, 'summed': cmd_summed,
        'rules': cmd_rules, 'alert': cmd_alert, 'value': cmd_value, 'wait': cmd_wait}


def main(argv):
    if len(argv) < 2 or argv[1] not in CMDS:
        print(__doc__, file=sys.stderr)
        return 64
    return CMDS[argv[1]](*argv[2:])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
