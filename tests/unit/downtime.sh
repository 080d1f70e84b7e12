#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `kvmchurn downtime` against QEMU's own trace output: the real captures of
# tests/fixtures/qemu-trace (outputs derived by hand: expected/downtime/README.md),
# QMP's downtime, logs made by qtrace_gen (exact counts), bad input and usage,
# --prometheus, --follow, standard input; and qtrace_fuzz (the trace reader under
# ASan and UBSan). `make check-unit` builds qtrace_gen and qtrace_fuzz first.
#
# Options: tests/unit/lib.sh's unit_options (--client, --qtrace-gen, --qtrace-fuzz,
# --tests, --no-promtool).
#
# One line a test, "ok - NAME" or "not ok - NAME" with "#" lines, then
# "downtime: N passed, N failed"; the exit status is 1 if any failed.

set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
unit_options "$@"
client=$(unit_client) || exit 2
gen=${opt_gen:-$here/qtrace_gen}
fuzz=${opt_fuzz:-$here/qtrace_fuzz}
fixtures=$top/tests/fixtures/qemu-trace
expected=$here/expected/downtime
bg=		# a --follow in the background

[[ -x $client ]] || { echo "downtime.sh: $client not found: run make client" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
cleanup() {
	[[ -n $bg ]] && kill -9 "$bg" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# run [-C DIR] ARGS...: the client's status in $rc, its output in $tmp/out, $tmp/err.
run() {
	local dir=.

	if [[ $1 == -C ]]; then
		dir=$2
		shift 2
	fi
	(cd "$dir" && "$client" downtime "$@") >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
# prom_hist_ok FILE: every histogram's buckets cumulative, le increasing, +Inf == _count
# (without python: the part of promcheck.py that matters here, in awk)
prom_hist_ok() {
	local out

	out=$(awk '
	/^#/ || /^$/ { next }
	{
		series = $0; sub(/ [^ ]*$/, "", series); v = $NF
		if (series ~ /_bucket\{/) {
			le = series; sub(/.*,le="/, "", le); sub(/".*/, "", le)
			key = series; sub(/_bucket\{/, "{", key); sub(/,le="[^"]*"/, "", key)
			if ((key in last) && v < last[key]) print "not cumulative: " $0
			if ((key in lastle) && lastle[key] != "+Inf" && le != "+Inf" && le + 0 <= lastle[key] + 0)
				print "le not increasing: " $0
			if (lastle[key] == "+Inf") print "a bucket after +Inf: " $0
			last[key] = v; lastle[key] = le
			if (le == "+Inf") inf[key] = v
		} else if (series ~ /_count\{/) {
			key = series; sub(/_count\{/, "{", key); count[key] = v
		}
	}
	END {
		for (k in count) if (!(k in inf) || inf[k] != count[k]) print "+Inf bucket " inf[k] " but _count " count[k] ": " k
		for (k in inf) if (!(k in count)) print "no _count: " k
	}' "$1")
	[[ -z $out ]] || problems+=("histograms:" "$(head -c 600 <<<"$out")")
}

# json_to_expect FORM < JSON: the lines qtrace_gen writes to its .expect files, from
# `kvmchurn downtime --json` (see qtrace_gen.c for their meaning)
json_to_expect() {
	awk -v form="$1" '
	function num(s, key) {
		return match(s, "\"" key "\":[0-9]+") ? substr(s, RSTART + length(key) + 3, RLENGTH - length(key) - 3) : "null"
	}
	function str(s, key) {
		return match(s, "\"" key "\":\"[^\"]*\"") ? substr(s, RSTART + length(key) + 4, RLENGTH - length(key) - 5) : "null"
	}
	{ json = json $0 }
	END {
		n = 0; rest = json
		# the migrations: one a {"seq":
		while ((i = index(rest, "{\"seq\":")) > 0) {
			rest = substr(rest, i + 7)
			j = index(rest, "{\"seq\":"); m = j ? substr(rest, 1, j - 1) : rest
			if (!j && (k = index(m, "]}],\"segments\":{"))) m = substr(m, 1, k + 2)
			n++
			side = str(m, "side"); mode = str(m, "mode")
			complete = index(m, "\"complete\":true") ? "true" : "false"
			ncps = gsub(/\{"name":/, "&", m); ndevs = gsub(/\{"idstr":/, "&", m)
			total = index(m, "\"total_us\":null") ? "null" : num(m, "total_us")
			print "migration", side, mode, complete, num(m, "first_line"), num(m, "last_line"), ncps, ndevs, total
			count[side " " mode " " complete]++
			if (complete == "false" && match(m, "\"why\":\"[^\"]*\"")) why[substr(m, RSTART + 7, RLENGTH - 8)]++
		}
		print "form", form
		print "lines", num(json, "read"); print "events", num(json, "downtime_events")
		print "other", num(json, "other_events"); print "skipped", num(json, "skipped")
		print "migrations", n
		split("src dst", S, " "); split("precopy postcopy", M, " "); split("false true", C, " ")
		for (a = 1; a <= 2; a++) for (b = 1; b <= 2; b++) for (c = 1; c <= 2; c++)
			print "count", S[a], M[b], C[c], count[S[a] " " M[b] " " C[c]] + 0
		for (w in why) print "why", why[w], w
		# the aggregates: "NAME":{"count":N,"sum":N
		rest = json
		while (match(rest, /"[^"]*":\{"count":[0-9]+,"sum":[0-9]+/)) {
			a = substr(rest, RSTART + 1, RLENGTH - 1); rest = substr(rest, RSTART + RLENGTH)
			name = substr(a, 1, index(a, "\"") - 1)
			cnt = a; sub(/.*"count":/, "", cnt); sub(/,.*/, "", cnt)
			sm = a; sub(/.*"sum":/, "", sm)
			print (index(name, " -> ") ? "segment" : "device"), cnt, sm, name
		}
	}'
}

# ---- 1-5. every capture against the outputs derived by hand -----------------

[[ -d $fixtures ]] || { echo "downtime.sh: $fixtures not found" >&2; exit 2; }
for dir in "$fixtures"/*/; do
	dir=${dir%/}
	id=$(basename "$dir")
	if [[ -f $dir/src.log ]]; then
		files=(src.log dst.log)
	else
		files=(src.stderr dst.stderr)
	fi
	if [[ -f $expected/$id.txt ]]; then
		run -C "$dir" "${files[@]}"
		want_rc 0
		want_same err empty
		want_same out "$expected/$id.txt"
		finish "$id: text"
		run -C "$dir" --json "${files[@]}"
		want_rc 0
		want_same err empty
		want_same out "$expected/$id.json"
		json_ok "$tmp/out"
		finish "$id: --json"
	elif [[ -f $expected/$id.err ]]; then
		# no downtime event at all (QEMU 7.2, or no log)
		run -C "$dir" "${files[@]}"
		want_rc 1
		want_same out empty
		want_same err "$expected/$id.err"
		finish "$id: no downtime event: exit 1, a message, no table"
		continue
	else
		problems+=("no expected/downtime/$id.txt nor .err: derive them (expected/downtime/README.md)")
		finish "$id: has expected outputs"
		continue
	fi

	# 2. the source's total is QMP's downtime (ms), within 1 ms
	if [[ -f $dir/qmp-src-migrate.json && $id != *-nots-* ]]; then
		qmp=$(sed -n 's/^ *"downtime": *\([0-9]*\),*$/\1/p' "$dir/qmp-src-migrate.json")
		total=$(sed -n 's/^{"migrations":\[{"seq":[0-9]*,"side":"src",[^}]*"total_us":\([0-9]*\),.*/\1/p' "$tmp/out")
		if [[ -z $qmp || -z $total ]]; then
			problems+=("no downtime in qmp-src-migrate.json ('$qmp') or no source total_us ('$total')")
		elif ((total - qmp * 1000 > 1000 || qmp * 1000 - total > 1000)); then
			problems+=("source total_us $total, QMP's downtime $qmp ms")
		fi
		finish "$id: source total_us is QMP's downtime within 1 ms"
	fi

	# 4. without times: no total, no segment time, order and devices still there
	if [[ $id == *-nots-* ]]; then
		json=$(cat "$tmp/out")
		grep -Eo '"(total_us|time_us)":[^,}]*' <<<"$json" | grep -v ':null$' >"$tmp/timed"
		[[ -s $tmp/timed ]] && problems+=("times that are not null:" "$(head -3 "$tmp/timed")")
		grep -o '"segments":\[[^]]*\]' <<<"$json" | grep -Eo '"us":[^,}]*' | grep -v ':null$' >"$tmp/timed"
		[[ -s $tmp/timed ]] && problems+=("segment times that are not null:" "$(head -3 "$tmp/timed")")
		grep -q '"total_us":null' <<<"$json" || problems+=("no total_us null")
		for f in "${files[@]}"; do
			want=$(sed -n 's/^vmstate_downtime_checkpoint //p' "$dir/$f" | tr '\n' ' ')
			got=$(grep -o '{"seq":[^]]*"source":"'"$f"'"[^]]*\]' <<<"$json" |
				grep -o '"name":"[^"]*"' | sed 's/"name":"//; s/"$//' | tr '\n' ' ')
			want_eq "$f: checkpoints in order" "$want" "$got"
			want=$(sed -nE 's/^vmstate_downtime_(save|load) type=([^ ]*) idstr=([^ ]*) instance_id=([0-9]*) downtime=([0-9]*)$/\3 \4 \2 \1 \5/p' "$dir/$f" | tr '\n' ',')
			got=$(sed 's/{"seq":/\n&/g' "$tmp/out" | grep '"source":"'"$f"'"' |
				grep -o '{"idstr":"[^"]*","instance_id":[0-9]*,"type":"[^"]*","op":"[^"]*","us":[0-9]*}' |
				sed 's/{"idstr":"\([^"]*\)","instance_id":\([0-9]*\),"type":"\([^"]*\)","op":"\([^"]*\)","us":\([0-9]*\)}/\1 \2 \3 \4 \5/' | tr '\n' ',')
			want_eq "$f: devices" "$want" "$got"
		done
		run -C "$dir" "${files[@]}"
		want_grep out '^writes times with -msg timestamp=on\.$'
		want_grep out '^The lines have no times'
		grep -E '^migration [0-9]+:.* us \[' "$tmp/out" >/dev/null && problems+=("a migration with a total")
		finish "$id: no times: totals and segments null, checkpoints and devices in order, -msg timestamp=on"
	fi
done

# 5. the kernel uprobe's tracefs output is no QEMU trace: every line skipped
kup=$fixtures/trixie-10.0.13-precopy-ts-kuprobe
run -C "$kup" kernel-uprobe-qemu_log.trace
want_rc 1
want_same out empty
want_same err "$expected/kernel-uprobe-qemu_log.err"
finish "kuprobe: kernel-uprobe-qemu_log.trace alone: exit 1, 159 lines, none an event"
run -C "$kup" --json src.log kernel-uprobe-qemu_log.trace
want_rc 0
want_grep out '"lines":\{"read":205,"downtime_events":46,"other_events":0,"skipped":159\}\}$'
finish "kuprobe: kernel-uprobe-qemu_log.trace after src.log: its 159 lines skipped and counted"

# the expected outputs are what derive.sh derives from the logs (README.md)
if date -u -d 2026-11-29T14:34:55Z +%s >/dev/null 2>&1; then
	mkdir "$tmp/derived"
	for f in "$expected"/*.json; do
		id=$(basename "$f" .json)
		case $id in
		follow-*) d=${id#follow-}; d=$fixtures/${d%-src}; fs=(src.log) ;;
		*-nots-*) d=$fixtures/$id; fs=(src.stderr dst.stderr) ;;
		*) d=$fixtures/$id; fs=(src.log dst.log) ;;
		esac
		"$expected/derive.sh" "$tmp/derived" "$id" "$d" "${fs[@]}" 2>"$tmp/err" ||
			problems+=("derive.sh $id failed: $(cat "$tmp/err")")
		cmp -s "$tmp/derived/$id.txt" "$expected/$id.txt" || problems+=("$id.txt is not what derive.sh derives")
		cmp -s "$tmp/derived/$id.json" "$expected/$id.json" || problems+=("$id.json is not what derive.sh derives")
	done
	finish "expected/downtime: every .txt and .json is what derive.sh derives from the logs"
else
	skip_test "expected/downtime: derived by derive.sh" "date -u -d does not read ISO-8601 times here"
fi

# --hist: the same output, with each segment's and device's histogram before the counts
tx=$fixtures/trixie-10.0.13-precopy-ts
run -C "$tx" --hist src.log dst.log
want_rc 0
awk '/^@/ { skip = 1 } skip && /^$/ { skip = 0; next } !skip' "$tmp/out" | cat -s >"$tmp/nohist"
cat -s "$expected/trixie-10.0.13-precopy-ts.txt" | cmp -s - "$tmp/nohist" ||
	problems+=("without its histograms, --hist's output is not the plain one")
want_eq "@segment_us maps" 7 "$(grep -c '^@segment_us\[' "$tmp/out")"
want_eq "@device_us maps" 72 "$(grep -c '^@device_us\[' "$tmp/out")"
want_grep out '^@segment_us\[src-downtime-start -> src-vm-stopped\]: $'
want_grep out '^\[256, 512\) +1 \|@+\|$'
finish "trixie-10.0.13-precopy-ts: --hist"

# ---- 6. generated logs: exact counts --------------------------------------

if [[ ! -x $gen ]]; then
	problems+=("$gen not found: make check-unit builds it")
	finish "qtrace_gen: generated logs"
else
	mkdir "$tmp/gen" "$tmp/gen2"
	"$gen" 20261129 "$tmp/gen" || problems+=("qtrace_gen failed")
	"$gen" 20261129 "$tmp/gen2"
	for f in tid iso bare; do
		cmp -s "$tmp/gen/$f.log" "$tmp/gen2/$f.log" || problems+=("$f.log differs from one run to the next")
	done
	finish "qtrace_gen: the same seed gives the same logs"
	for f in tid iso bare; do
		log=$tmp/gen/$f.log
		run --json "$log"
		want_rc 0
		want_same err empty
		json_to_expect "$f" <"$tmp/out" | sort >"$tmp/got"
		sort "$tmp/gen/$f.expect" >"$tmp/want"
		if ! cmp -s "$tmp/want" "$tmp/got"; then
			problems+=("--json disagrees with $f.expect (< expected, > reported):")
			while IFS= read -r line; do problems+=("$line"); done < <(diff "$tmp/want" "$tmp/got" | head -20)
		fi
		want_eq "migrations written" 1 "$(awk '$1 == "migrations" && $2 >= 60 { print 1 }' "$tmp/want")"
		[[ $f == tid ]] && want_eq "migrations in tid.log, 200 and their parts" 1 \
			"$(awk '$1 == "migrations" && $2 >= 200 { print 1 }' "$tmp/want")"
		finish "qtrace_gen $f.log: migrations by side, mode, complete, lines, reasons, segment and device sums as written"

		# never merged: each one reported where it was written, with its own lines
		awk '$1 == "migration" && $4 == "false"' "$tmp/want" >"$tmp/inc"
		want_eq "incomplete migrations written" 1 "$( (($(wc -l <"$tmp/inc") >= 10)) && echo 1)"
		while read -r _ side mode _ first last ncps ndevs _; do
			grep -q "^migration $side $mode false $first $last $ncps $ndevs " "$tmp/got" ||
				problems+=("the incomplete $side migration of lines $first-$last ($ncps checkpoints, $ndevs devices) is not reported so")
		done <"$tmp/inc"
		finish "qtrace_gen $f.log: every cut, interrupted or swapped migration reported incomplete, not merged"

		run "$log"
		want_rc 0
		read -r ns nd nc < <(awk '$1 == "count" { n[$2] += $5; if ($4 == "true") c += $5 }
			END { print n["src"] + 0, n["dst"] + 0, c + 0 }' "$tmp/want")
		want_grep out "^$((ns + nd)) migrations \($ns src, $nd dst\), $nc complete$"
		read -r l e o s < <(awk '{ v[$1] = $2 } END { print v["lines"], v["events"], v["other"], v["skipped"] }' "$tmp/want")
		want_grep out "^$l lines: $e downtime events, $o other trace events, $s skipped$"
		[[ $f == bare ]] && want_grep out '^writes times with -msg timestamp=on\.$'
		finish "qtrace_gen $f.log: text summary"
	done

	run --prometheus "$tmp/gen/tid.log"
	want_rc 0
	cp "$tmp/out" "$tmp/gen.prom"
	prom_ok "$tmp/gen.prom"
	prom_hist_ok "$tmp/gen.prom"
	awk '$1 == "count" { printf "kvmchurn_migrations_total{side=\"%s\",mode=\"%s\",complete=\"%s\"} %s\n", $2, $3, $4, $5 }' \
		"$tmp/gen/tid.expect" | sort >"$tmp/want"
	grep '^kvmchurn_migrations_total{' "$tmp/gen.prom" | sort >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" || problems+=("kvmchurn_migrations_total:" "$(diff "$tmp/want" "$tmp/got" | head -10)")
	finish "qtrace_gen tid.log: --prometheus, kvmchurn_migrations_total as written"
fi

# ---- 6b. checkpoints QEMU always writes, and the two it may not ----------------

# a source without src-non-iterable-saved: incomplete, saying which is missing
printf '%s\n' \
	'7@1.000000:vmstate_downtime_checkpoint src-downtime-start' \
	'7@1.000010:vmstate_downtime_checkpoint src-vm-stopped' \
	'7@1.000020:vmstate_downtime_save type=iterable idstr=ram instance_id=0 downtime=5' \
	'7@1.000030:vmstate_downtime_checkpoint src-iterable-saved' \
	'7@1.000050:vmstate_downtime_checkpoint src-downtime-end' >"$tmp/gap.log"
run --json "$tmp/gap.log"
want_rc 0
want_grep out '"side":"src","mode":"precopy","complete":false,"why":"no src-non-iterable-saved before src-downtime-end"'
want_grep out '"total_us":50,'
finish "a source without src-non-iterable-saved is incomplete, and says so"
# a postcopy destination of QEMU 8.2/9.x: no cpu-synced, no cache-invalidated
printf '%s\n' \
	'9@2.000000:vmstate_downtime_load type=non-iterable idstr=cpu instance_id=0 downtime=3' \
	'9@2.000100:vmstate_downtime_checkpoint dst-precopy-loadvm-completed' \
	'9@2.000200:vmstate_downtime_checkpoint dst-postcopy-bh-enter' \
	'9@2.000300:vmstate_downtime_checkpoint dst-postcopy-bh-announced' \
	'9@2.000400:vmstate_downtime_checkpoint dst-postcopy-bh-vm-started' \
	'8@2.000900:vmstate_downtime_load type=iterable idstr=ram instance_id=0 downtime=700' >"$tmp/pc82.log"
run --json "$tmp/pc82.log"
want_rc 0
want_grep out '"side":"dst","mode":"postcopy","complete":true,"why":null'
want_grep out '"total_us":300,'
want_grep out '"idstr":"ram","instance_id":0,"type":"iterable","op":"load","us":700'
finish "a postcopy destination without the two checkpoints of QEMU 10 is complete"

# ---- 7. bad input, usage --------------------------------------------------

mkdir "$tmp/in" "$tmp/in/adir"
: >"$tmp/in/empty.log"
cp "$tx/src.log" "$tmp/in/src.log"
touch "$tmp/in/plain"

run -C "$tmp/in" missing.log
want_rc 2
want_same out empty
want_same err "$expected/missing-file.err"
finish "a missing FILE: exit 2, the message names it"
run -C "$tmp/in" src.log missing.log
want_rc 2
want_same out empty
want_same err "$expected/missing-file.err"
finish "a missing FILE after a good one: exit 2, no output"
run -C "$tmp/in" adir
want_rc 2
want_same out empty
want_same err "$expected/directory.err"
finish "a directory as FILE: exit 2"
run -C "$tmp/in" empty.log
want_rc 1
want_same out empty
want_same err "$expected/empty.err"
finish "an empty FILE: exit 1"
run -C "$tmp/in" --json empty.log
want_rc 1
want_same out empty
finish "an empty FILE, --json: exit 1, no output"

usage() {	# usage NAME ARGS...: exit 64, nothing on stdout, expected/downtime/usage-NAME.err
	local name=$1

	shift
	run -C "$tmp/in" "$@"
	want_rc 64
	want_same out empty
	want_same err "$expected/usage-$name.err"
	finish "usage: $* (exit 64)"
}
usage json-prometheus --json --prometheus src.log
usage o-without-prometheus -o out.prom src.log
usage o-without-prometheus --json -o out.prom src.log
usage follow-hist --follow --hist src.log
usage follow-prometheus --follow --prometheus src.log
usage follow-two-files --follow src.log src.log
usage qmp-without-enable --qmp plain
usage enable-without-qmp --enable
usage enable-without-qmp --disable src.log
usage enable-and-disable --qmp plain --enable --disable
usage qmp-with-file --qmp plain --enable src.log
usage qmp-with-json --qmp plain --disable --json
[[ -e $tmp/in/out.prom ]] && problems+=("a usage error wrote out.prom")
finish "usage errors write no file"

for path in plain adir missing.sock; do
	run -C "$tmp/in" --qmp "$path" --enable
	want_rc 2
	want_same out empty
	want_grep err "^kvmchurn downtime: cannot connect to $path: "
	finish "--qmp $path (not a socket): exit 2, the message names it"
done

# ---- 8. --prometheus ------------------------------------------------------

run -C "$tx" --prometheus src.log dst.log
want_rc 0
want_same err empty
cp "$tmp/out" "$tmp/tx.prom"
prom_ok "$tmp/tx.prom"
prom_hist_ok "$tmp/tx.prom"
finish "--prometheus: Prometheus' text format, buckets cumulative, +Inf = _count"

# each segment's one value lies in the first bucket of count 1: 2^j us > value >= 2^(j-1)
sed 's/{"from":/\n&/g' "$expected/trixie-10.0.13-precopy-ts.json" |
	sed -n 's/^{"from":"\([^"]*\)","to":"\([^"]*\)","us":\([0-9]*\)}.*/\1 \2 \3/p' >"$tmp/segs"
want_eq "segments of the capture" 7 "$(wc -l <"$tmp/segs")"
while read -r from to us; do
	first=$(grep -F "from=\"$from\",to=\"$to\"," "$tmp/tx.prom" | grep '_bucket{' |
		awk '$NF == 1 { sub(/.*le="/, ""); sub(/".*/, ""); print; exit }')
	sum=$(grep -F "from=\"$from\",to=\"$to\"}" "$tmp/tx.prom" | awk '/_sum\{/ { print $NF }')
	awk -v le="$first" -v us="$us" -v sum="$sum" 'BEGIN {
		b = le * 1e6; ok = b > us && b / 2 <= us + 0.5 && (sum * 1e6 - us < 0.5 && us - sum * 1e6 < 0.5)
		exit !ok }' || problems+=("$from -> $to: $us us, but its first bucket of count 1 is le=$first, _sum $sum")
done <"$tmp/segs"
grep -qx 'kvmchurn_migrations_total{side="src",mode="precopy",complete="true"} 1' "$tmp/tx.prom" ||
	problems+=("no kvmchurn_migrations_total of the complete src precopy")
finish "--prometheus: each segment in its bucket (le = the next power of two of us), _sum in seconds"

run -C "$tx" --prometheus -o "$tmp/o.prom" src.log dst.log
want_rc 0
want_same out empty
want_same err empty
cmp -s "$tmp/o.prom" "$tmp/tx.prom" || problems+=("-o FILE is not what stdout was")
finish "--prometheus -o FILE writes the file, nothing on stdout"

# ---- 9. --follow ------------------------------------------------------------

# The follower is watched by what it has done, never by time: each wait below
# ends on an event, and its 60 s only guard against a hang.
# idle_at FILE [BYTES]: until the follower has read FILE up to BYTES (default: all of
# it; the offset of its descriptor, /proc/PID/fdinfo) and is asleep (it sleeps only
# between reads, so what it read is dealt with)
read_to() { # read_to PATH BYTES: the follower has read PATH up to BYTES and sleeps
	local fd pos

	for fd in /proc/"$bg"/fd/*; do
		[[ $(readlink "$fd" 2>/dev/null) == "$1" ]] || continue
		pos=$(awk '$1 == "pos:" { print $2 }' "/proc/$bg/fdinfo/${fd##*/}" 2>/dev/null)
		[[ $pos == "$2" && $(awk '{ print $3 }' "/proc/$bg/stat" 2>/dev/null) == S ]] && return 0
	done
	return 1
}
idle_at() {
	local want=${2:-$(stat -c %s "$1")}

	wait_for 60 read_to "$(readlink -f "$1")" "$want" ||
		problems+=("the follower did not read $1 to byte $want within 60 s")
}
# stop_bg: SIGINT to the follower, its status in $rc (killed if still there after 60 s)
stop_bg() {
	kill -INT "$bg"
	if ! wait_for 60 gone "$bg"; then
		kill -9 "$bg"
		problems+=("still running 60 s after SIGINT")
	fi
	wait "$bg"
	rc=$?
	bg=
}

mkdir "$tmp/f"
: >"$tmp/f/src.log"
(cd "$tmp/f" && exec "$client" downtime --follow src.log) >"$tmp/f/out" 2>"$tmp/f/err" &
bg=$!
size=$(wc -c <"$tx/src.log")
head -c 2000 "$tx/src.log" >>"$tmp/f/src.log"	# cut inside a line
idle_at "$tmp/f/src.log" 2000
[[ -s $tmp/f/out ]] && problems+=("output before the migration ended:" "$(head -3 "$tmp/f/out")")
tail -c $((size - 2000)) "$tx/src.log" >>"$tmp/f/src.log"
if wait_for 60 has_line "$tmp/f/out" '^  slowest devices'; then
	idle_at "$tmp/f/src.log"
	sed '/^$/q' "$expected/follow-trixie-10.0.13-precopy-ts-src.txt" | sed '$d' >"$tmp/block"
	cmp -s "$tmp/block" "$tmp/f/out" ||
		problems+=("the migration printed is not:" "$(diff "$tmp/block" "$tmp/f/out" | head -10)")
else
	problems+=("no migration printed within 60 s:" "$(head -c 300 "$tmp/f/out")")
fi
stop_bg
want_eq "exit status after SIGINT" 0 "$rc"
cmp -s "$tmp/f/out" "$expected/follow-trixie-10.0.13-precopy-ts-src.txt" ||
	problems+=("after SIGINT, the output is not the migration and the summary:"
		"$(diff "$expected/follow-trixie-10.0.13-precopy-ts-src.txt" "$tmp/f/out" | head -10)")
[[ -s $tmp/f/err ]] && problems+=("stderr: $(head -c 300 "$tmp/f/err")")
finish "--follow: a migration written in two parts, printed when it ends; SIGINT: exit 0 and the summary"

# a file cut short while followed is read again from its start
cp "$tx/src.log" "$tmp/f/src.log"
(cd "$tmp/f" && exec "$client" downtime --follow src.log) >"$tmp/f/out" 2>"$tmp/f/err" &
bg=$!
if wait_for 60 has_line "$tmp/f/out" '^  slowest devices'; then
	# all of the first file read, then one shorter written over it
	idle_at "$tmp/f/src.log"
	cat "$fixtures/trixie-10.0.13-precopy-ts-dflag/src.log" >"$tmp/f/src.log"
	wait_for 60 has_line "$tmp/f/out" '^migration 2:' || problems+=("nothing read after the file was cut short")
	idle_at "$tmp/f/src.log"
else
	problems+=("no migration printed within 60 s")
fi
stop_bg
want_eq "exit status after SIGINT" 0 "$rc"
{
	sed '/^$/q' "$expected/trixie-10.0.13-precopy-ts.txt" | sed '$d'
	sed '/^$/q' "$expected/trixie-10.0.13-precopy-ts-dflag.txt" | sed '$d; s/^migration 1:/migration 2:/'
} >"$tmp/block"
head -n "$(wc -l <"$tmp/block")" "$tmp/f/out" | cmp -s "$tmp/block" - ||
	problems+=("not the two migrations, each from line 1:" "$(diff "$tmp/block" "$tmp/f/out" | head -10)")
grep -qx '2 migrations (2 src, 0 dst), 2 complete' "$tmp/f/out" || problems+=("no summary of 2 migrations")
grep -qx '51 lines: 51 downtime events, 0 other trace events, 0 skipped' "$tmp/f/out" ||
	problems+=("not 46 + 5 lines counted")
finish "--follow: a file cut short is read again from its start"

# --follow --json: one object a line, no summary
cp "$tx/src.log" "$tmp/f/src.log"
(cd "$tmp/f" && exec "$client" downtime --follow --json src.log) >"$tmp/f/out" 2>"$tmp/f/err" &
bg=$!
wait_for 60 has_line "$tmp/f/out" '^\{"seq":1,' || problems+=("no migration printed within 60 s")
idle_at "$tmp/f/src.log"
stop_bg
want_eq "exit status after SIGINT" 0 "$rc"
sed 's/^{"migrations":\[//; s/\],"segments":{.*//' "$expected/follow-trixie-10.0.13-precopy-ts-src.json" |
	cmp -s - "$tmp/f/out" || problems+=("not the migration's object alone:" "$(head -c 300 "$tmp/f/out")")
finish "--follow --json: the migration's object on one line"

# ---- 10. standard input -------------------------------------------------------

for args in "" "-"; do
	for json in "" --json; do
		# shellcheck disable=SC2086 # the empty ones go away
		(cd "$tx" && "$client" downtime $json $args <src.log) >"$tmp/out" 2>"$tmp/err"
		rc=$?
		want_rc 0
		want_same err empty
		(cd "$tx" && "$client" downtime $json src.log) |
			sed 's/\[src\.log:/[stdin:/; s/"source":"src\.log"/"source":"stdin"/' >"$tmp/want"
		want_same out "$tmp/want"
		finish "standard input (${args:-no FILE}${json:+, --json}): the output of the file, named stdin"
	done
done

# ---- qtrace_fuzz: the reader under ASan and UBSan -------------------------

if [[ ! -x $fuzz ]]; then
	problems+=("$fuzz not found: make check-unit builds it")
else
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
		"$fuzz" 20261129 500000 "$fixtures"/*/src.log "$fixtures"/*/dst.log \
		"$fixtures"/*/*.stderr "$fixtures"/*/*.trace >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc 0
	want_same err empty
	want_grep out ': ok$'
	[[ -s $tmp/out ]] && echo "# $(cat "$tmp/out")"
fi
finish "qtrace_fuzz: random, mutated and cut lines: no crash, no sanitizer report, invariants hold"

done_suite downtime
