#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a file against Prometheus' text exposition format (version 0.0.4),
for hosts without promtool: names, labels and their escapes, values, HELP and
TYPE before a family's samples, families not interleaved, no series twice,
and histograms whole (le increasing, counts cumulative, +Inf last and equal
to _count, _sum and _count present). Prints the problems and exits 1."""
import math
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*$')
LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*$')
TYPES = ('counter', 'gauge', 'histogram', 'summary', 'untyped')


def value(text):
    if text in ('+Inf', 'Inf'):
        return math.inf
    if text == '-Inf':
        return -math.inf
    if text == 'NaN':
        return math.nan
    if not re.fullmatch(r'[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?', text):
        raise ValueError(text)
    return float(text)


def labels(text):
    """'a="x",b="y"' -> [(a, x), (b, y)]; raises ValueError."""
    out, i = [], 0
    while i < len(text):
        m = re.match(r'([a-zA-Z_][a-zA-Z0-9_]*)="', text[i:])
        if not m:
            raise ValueError('label at %r' % text[i:])
        name, i, val = m.group(1), i + m.end(), ''
        while True:
            if i >= len(text):
                raise ValueError('unterminated value of ' + name)
            c = text[i]
            if c == '\\':
                nxt = text[i + 1:i + 2]
                if nxt not in ('\\', '"', 'n'):
                    raise ValueError('bad escape in ' + name)
                val += {'n': '\n'}.get(nxt, nxt)
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == '\n':
                raise ValueError('newline in ' + name)
            else:
                val += c
                i += 1
        out.append((name, val))
        if i < len(text):
            if text[i] != ',':
                raise ValueError('expected , after ' + name)
            i += 1
    return out


def family_of(name, types):
    for suffix in ('_bucket', '_sum', '_count'):
        base = name[:-len(suffix)] if name.endswith(suffix) else None
        if base and types.get(base) in ('histogram', 'summary'):
            return base
    return name


def check(lines):
    problems, types, helps = [], {}, set()
    seen_series, done, current = set(), set(), None
    hist = {}   # (family, labels without le) -> {'buckets': [(le, v)], ...}
    for n, line in enumerate(lines, 1):
        where = 'line %d' % n
        if line.startswith('#'):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ('HELP', 'TYPE'):
                name = parts[2]
                if not NAME.match(name):
                    problems.append('%s: bad metric name %r' % (where, name))
                if name in done or (name == current and parts[1] == 'TYPE' and name in types):
                    problems.append('%s: %s of %s after its samples or twice' % (where, parts[1], name))
                if parts[1] == 'TYPE':
                    if len(parts) < 4 or parts[3] not in TYPES:
                        problems.append('%s: bad TYPE line' % where)
                    elif name in types:
                        problems.append('%s: second TYPE of %s' % (where, name))
                    else:
                        types[name] = parts[3]
                else:
                    if name in helps:
                        problems.append('%s: second HELP of %s' % (where, name))
                    helps.add(name)
                if current and current != name:
                    done.add(current)
                current = name
            continue
        if not line.strip():
            problems.append('%s: empty line' % where)
            continue
        m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$', line)
        if not m:
            problems.append('%s: not a sample: %r' % (where, line))
            continue
        name, lab, val = m.group(1), m.group(3) or '', m.group(4)
        try:
            pairs = labels(lab)
            v = value(val)
        except ValueError as e:
            problems.append('%s: %s' % (where, e))
            continue
        if len({k for k, _ in pairs}) != len(pairs):
            problems.append('%s: a label twice' % where)
        fam = family_of(name, types)
        if fam not in types:
            problems.append('%s: %s has no TYPE before it' % (where, fam))
        if fam in done:
            problems.append('%s: samples of %s are not together' % (where, fam))
        if current and current != fam:
            done.add(current)
        current = fam
        key = (name, tuple(sorted(pairs)))
        if key in seen_series:
            problems.append('%s: series %s twice' % (where, key))
        seen_series.add(key)
        if types.get(fam) == 'counter' and (v < 0 or math.isnan(v)):
            problems.append('%s: counter below 0' % where)
        if types.get(fam) == 'histogram':
            rest = tuple(sorted((k, x) for k, x in pairs if k != 'le'))
            h = hist.setdefault((fam, rest), {'buckets': [], 'sum': None, 'count': None})
            if name == fam + '_bucket':
                le = dict(pairs).get('le')
                if le is None:
                    problems.append('%s: bucket without le' % where)
                    continue
                h['buckets'].append((value(le), v))
            elif name == fam + '_sum':
                h['sum'] = v
            elif name == fam + '_count':
                h['count'] = v
            else:
                problems.append('%s: %s is not a histogram sample' % (where, name))
    for (fam, rest), h in hist.items():
        what = '%s%s' % (fam, dict(rest))
        b = h['buckets']
        if not b or b[-1][0] != math.inf:
            problems.append('%s: no +Inf bucket last' % what)
        if any(b[i][0] >= b[i + 1][0] for i in range(len(b) - 1)):
            problems.append('%s: le not increasing' % what)
        if any(b[i][1] > b[i + 1][1] for i in range(len(b) - 1)):
            problems.append('%s: bucket counts not cumulative' % what)
        if h['sum'] is None or h['count'] is None:
            problems.append('%s: no _sum or _count' % what)
        elif b and b[-1][1] != h['count']:
            problems.append('%s: +Inf bucket %s but _count %s' % (what, b[-1][1], h['count']))
    return problems


def main():
    data = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    problems = [] if data.endswith('\n') else ['no newline at the end']
    problems += check(data[:-1].split('\n') if data.endswith('\n') else data.split('\n'))
    for p in problems[:20]:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
