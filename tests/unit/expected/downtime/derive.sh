#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# How the fixture outputs of this folder were derived, without kvmchurn (README.md):
#
#   derive.sh OUTDIR NAME DIR FILE...
#
# reads the QEMU trace logs DIR/FILE... (tests/fixtures/qemu-trace, each log one
# side of one real migration) with awk, date and nothing else, and writes
# OUTDIR/NAME.txt and OUTDIR/NAME.json: what `kvmchurn downtime FILE...` and
# `kvmchurn downtime --json FILE...`, run in DIR, must print. It knows the facts of
# the README of the fixtures, not the client's code: one migration a file; the
# checkpoints in the order of the lines, each time taken from its line's prefix
# (TID@SEC.USEC: is SEC seconds and USEC microseconds; an ISO-8601 UTC time is
# converted with date -u); a segment is the difference of two consecutive
# checkpoint times; the devices are the save/load lines, sorted by their
# downtime= (ties in line order) for the 5 slowest; the percentiles follow the
# formula of Documentation/ABI.rst (the value's slot, a quarter of a power of two
# wide, interpolated linearly, never above the maximum).

set -eu
export LC_ALL=C

[ $# -ge 4 ] || { echo "usage: $0 OUTDIR NAME DIR FILE..." >&2; exit 64; }
out=$(cd "$1" && pwd)
name=$2
cd "$3"
shift 3

# epoch seconds of each ISO time in the logs, from date(1): "ISO SECONDS" lines
isos=$(sed -n 's/^\([0-9-]*T[0-9:]*\)\(\.[0-9]*\)\{0,1\}Z .*/\1/p' "$@" | sort -u |
	while read -r t; do echo "$t $(date -u -d "${t}Z" +%s)"; done)

awk -v isos="$isos" -v json="$out/$name.json" '
function pad6(f) { while (length(f) < 6) f = f "0"; return substr(f, 1, 6) }
# 2^p for p >= 0, exactly
function pow2(p,  r) { r = 1; while (p-- > 0) r *= 2; return r }
# ABI.rst: 0-3 have a slot each; v >= 4 with p = floor(log2(v)) goes to
# slot 4 + 4 * (p - 2) + the two bits below the leading one
function slot(v,  p) {
	if (v < 4) return v
	p = 0; while (pow2(p + 1) <= v) p++
	return 4 + 4 * (p - 2) + int(v / pow2(p - 2)) % 4
}
function slot_lo(s,  p) {
	if (s < 4) return s
	p = int((s - 4) / 4) + 2
	return (4 + (s - 4) % 4) * pow2(p - 2)
}
# percentile of the values vals[key, 1..n]: rank r = ceil(n * permille / 1000)
# (at least 1); in the slot that holds the r-th value, lo + width * k / (c + 1)
# (integer parts as in the ABI), k the rank within the slot, c its count
function pct(key, n, permille, max,   i, s, cnt, rank, seen, lo, width, k, d, v) {
	split("", cnt)
	for (i = 1; i <= n; i++) cnt[slot(vals[key, i])]++
	rank = int((n * permille + 999) / 1000); if (rank < 1) rank = 1
	seen = 0
	for (s = 0; s < 300; s++) {
		if (!(s in cnt)) continue
		if (seen + cnt[s] < rank) { seen += cnt[s]; continue }
		lo = slot_lo(s)
		if (s < 4) v = lo
		else {
			width = slot_lo(s + 1) - lo; k = rank - seen; d = cnt[s] + 1
			v = lo + int(width / d) * k + int((width % d) * k / d)
		}
		return v > max ? max : v
	}
}
function q(s) { return "\"" s "\"" }
BEGIN {
	n = split(isos, a, "\n")
	for (i = 1; i <= n; i++) { split(a[i], b, " "); epoch[b[1]] = b[2] }
	nfile = 0
}
FNR == 1 { nfile++; fname[nfile] = FILENAME }
{
	lines++
	line = $0; has = 0; tid = ""
	# TID@SEC.USEC:
	if (match(line, /^[0-9]+@[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]:/)) {
		pre = substr(line, 1, RLENGTH - 1); line = substr(line, RLENGTH + 1)
		split(pre, p, "@"); tid = p[1]; split(p[2], t, ".")
		sec = t[1]; usec = t[2]; has = 1
	} else if (match(line, /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9](\.[0-9]+)?Z /)) {
		pre = substr(line, 1, RLENGTH - 2); line = substr(line, RLENGTH + 1)
		frac = ""
		if (index(pre, ".")) { frac = substr(pre, index(pre, ".") + 1); pre = substr(pre, 1, index(pre, ".") - 1) }
		sec = epoch[pre]; usec = pad6(frac); has = 1
	}
	nw = split(line, w, " ")
	ev = w[1]
	if (ev == "vmstate_downtime_checkpoint" && nw == 2) kind = "cp"
	else if ((ev == "vmstate_downtime_save" || ev == "vmstate_downtime_load") && nw == 5) kind = "dev"
	else {
		# another trace event: only with a prefix (a bare "word ..." is no event)
		if (has && ev ~ /^[a-z_][a-z0-9_]*$/) other++; else skipped++
		if (has && ev == "migrate_set_state" && w[4] == "postcopy-active") pcstate[nfile] = 1
		next
	}
	events++
	f = nfile; nev[f]++
	if (nev[f] == 1) { first[f] = FNR; thread[f] = tid }
	last[f] = FNR
	if (has) anytime = 1; else notime = 1
	if (kind == "cp") {
		c = ++ncp[f]
		cpname[f, c] = w[2]; cphas[f, c] = has; cpsec[f, c] = sec; cpusec[f, c] = usec
		if (w[2] ~ /^dst-/) side[f] = "dst"
		if (w[2] ~ /^src-/) side[f] = "src"
		if (w[2] ~ /^dst-postcopy-/) dpost[f] = 1
	} else {
		d = ++ndev[f]
		split(w[2], x, "="); dtype[f, d] = x[2]
		split(w[3], x, "="); didstr[f, d] = x[2]
		split(w[4], x, "="); dinst[f, d] = x[2]
		split(w[5], x, "="); dus[f, d] = x[2]
		dop[f, d] = ev == "vmstate_downtime_save" ? "save" : "load"
		if (dtype[f, d] == "iterable" && didstr[f, d] == "ram") ramit[f] = 1
	}
}
function cpdiff(f, i, j) { return (cpsec[f, j] - cpsec[f, i]) * 1000000 + (cpusec[f, j] - cpusec[f, i]) }
function devname(f, d) { return dop[f, d] " " dtype[f, d] " " didstr[f, d] "/" dinst[f, d] }
# adds value v to the aggregate "key" of table t ("seg" or "dev")
function agg(t, key, v) {
	if (!((t, key) in cnt_)) { keys[t, ++nkeys[t]] = key; cnt_[t, key] = 0; sum_[t, key] = 0; max_[t, key] = 0 }
	cnt_[t, key]++; sum_[t, key] += v; if (v > max_[t, key]) max_[t, key] = v
	vals[t SUBSEP key, cnt_[t, key]] = v
}
function sortkeys(t,   i, j, k) {
	for (i = 2; i <= nkeys[t]; i++) {
		k = keys[t, i]
		for (j = i - 1; j >= 1 && keys[t, j] > k; j--) keys[t, j + 1] = keys[t, j]
		keys[t, j + 1] = k
	}
}
function table(t, title,   wd, i, k, fmt, n) {
	wd = length(title)
	for (i = 1; i <= nkeys[t]; i++) if (length(keys[t, i]) > wd) wd = length(keys[t, i])
	fmt = "%-" wd "s"
	printf fmt " %9s %11s %11s %11s %11s %11s  %s\n", title, "count", "avg", "p50", "p90", "p99", "max", "unit"
	for (i = 1; i <= nkeys[t]; i++) {
		k = keys[t, i]; n = cnt_[t, k]
		printf fmt " %9d %11d %11d %11d %11d %11d  us\n", k, n, int(sum_[t, k] / n),
			pct(t SUBSEP k, n, 500, max_[t, k]), pct(t SUBSEP k, n, 900, max_[t, k]),
			pct(t SUBSEP k, n, 990, max_[t, k]), max_[t, k]
	}
}
function jaggs(t,   i, k, n, s) {
	s = ""
	for (i = 1; i <= nkeys[t]; i++) {
		k = keys[t, i]; n = cnt_[t, k]
		s = s (i > 1 ? "," : "") q(k) ":{\"count\":" n ",\"sum\":" sum_[t, k] ",\"avg\":" int(sum_[t, k] / n) \
			",\"p50\":" pct(t SUBSEP k, n, 500, max_[t, k]) ",\"p90\":" pct(t SUBSEP k, n, 900, max_[t, k]) \
			",\"p99\":" pct(t SUBSEP k, n, 990, max_[t, k]) ",\"max\":" max_[t, k] "}"
	}
	return "{" s "}"
}
END {
	seq = 0; nsrc = 0; ndst = 0; ncomp = 0; jm = ""
	for (f = 1; f <= nfile; f++) {
		if (!nev[f]) continue
		seq++
		s = side[f]
		if (s == "src") { nsrc++; mode = (pcstate[f] || (ndev[f] && !ramit[f])) ? "postcopy" : "precopy" }
		else { ndst++; mode = dpost[f] ? "postcopy" : "precopy" }
		startcp = s == "src" ? "src-downtime-start" : "dst-precopy-loadvm-completed"
		endre = s == "src" ? "^src-downtime-end$" : "^dst-(pre|post)copy-bh-vm-started$"
		complete = cpname[f, 1] == startcp && cpname[f, ncp[f]] ~ endre
		if (!complete) { print "derive.sh: " fname[f] ": not one whole migration" > "/dev/stderr"; exit 1 }
		ncomp++
		timed = cphas[f, 1] && cphas[f, ncp[f]]
		# text
		if (seq > 1) print ""
		printf "migration %d: %s %s, complete", seq, s, mode
		if (timed) printf ", %d us", cpdiff(f, 1, ncp[f])
		printf " [%s:%d-%d", fname[f], first[f], last[f]
		if (thread[f] != "") printf ", thread %s", thread[f]
		print "]"
		for (i = 1; i <= ncp[f]; i++) {
			if (i > 1 && cphas[f, i] && cphas[f, i - 1])
				printf "  %-36s %+10d us\n", cpname[f, i], cpdiff(f, i - 1, i)
			else
				printf "  %s\n", cpname[f, i]
		}
		if (ndev[f]) {
			# a stable insertion sort of the device lines, slowest first
			for (i = 1; i <= ndev[f]; i++) ord[i] = i
			for (i = 2; i <= ndev[f]; i++) {
				k = ord[i]
				for (j = i - 1; j >= 1 && dus[f, ord[j]] + 0 < dus[f, k] + 0; j--) ord[j + 1] = ord[j]
				ord[j + 1] = k
			}
			n = ndev[f] < 5 ? ndev[f] : 5
			printf "  slowest devices (%d of %d):\n", n, ndev[f]
			for (i = 1; i <= n; i++) printf "    %-48s %10d us\n", devname(f, ord[i]), dus[f, ord[i]]
		}
		# JSON
		jc = ""; js = ""; jd = ""
		for (i = 1; i <= ncp[f]; i++) {
			jc = jc (i > 1 ? "," : "") "{\"name\":" q(cpname[f, i]) ",\"time_us\":" (cphas[f, i] ? cpsec[f, i] cpusec[f, i] : "null") "}"
			if (i > 1) js = js (i > 2 ? "," : "") "{\"from\":" q(cpname[f, i - 1]) ",\"to\":" q(cpname[f, i]) \
				",\"us\":" (cphas[f, i] && cphas[f, i - 1] ? cpdiff(f, i - 1, i) : "null") "}"
		}
		for (i = 1; i <= ndev[f]; i++)
			jd = jd (i > 1 ? "," : "") "{\"idstr\":" q(didstr[f, i]) ",\"instance_id\":" dinst[f, i] ",\"type\":" q(dtype[f, i]) \
				",\"op\":" q(dop[f, i]) ",\"us\":" dus[f, i] "}"
		jm = jm (seq > 1 ? "," : "") "{\"seq\":" seq ",\"side\":" q(s) ",\"mode\":" q(mode) ",\"complete\":true,\"why\":null,\"source\":" \
			q(fname[f]) ",\"first_line\":" first[f] ",\"last_line\":" last[f] ",\"thread\":" (thread[f] != "" ? thread[f] : "null") \
			",\"total_us\":" (timed ? cpdiff(f, 1, ncp[f]) : "null") ",\"checkpoints\":[" jc "],\"segments\":[" js "],\"devices\":[" jd "]}"
		# the aggregates: segments with both times, every device line
		for (i = 2; i <= ncp[f]; i++)
			if (cphas[f, i] && cphas[f, i - 1])
				agg("seg", cpname[f, i - 1] " -> " cpname[f, i], cpdiff(f, i - 1, i))
		for (i = 1; i <= ndev[f]; i++) agg("dev", devname(f, i), dus[f, i] + 0)
	}
	sortkeys("seg"); sortkeys("dev")
	printf "\n%d migrations (%d src, %d dst), %d complete\n", nsrc + ndst, nsrc, ndst, ncomp
	if (nkeys["seg"]) { print ""; table("seg", "segment") }
	if (nkeys["dev"]) { print ""; table("dev", "device") }
	if (notime && !anytime)
		printf "\nThe lines have no times: only the order of the checkpoints is known. QEMU\nwrites times with -msg timestamp=on.\n"
	printf "\n%d lines: %d downtime events, %d other trace events, %d skipped\n", lines, events, other + 0, skipped + 0
	printf("{\"migrations\":[%s],\"segments\":%s,\"devices\":%s,\"lines\":{\"read\":%d,\"downtime_events\":%d,\"other_events\":%d,\"skipped\":%d}}\n",
		jm, jaggs("seg"), jaggs("dev"), lines, events, other + 0, skipped + 0) > json
}
' "$@" >"$out/$name.txt"
