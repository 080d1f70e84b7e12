# shellcheck shell=sh
# tap.sh: what every scenario needs, sourced as /kvmchurn/tap.sh (busybox sh).
# A scenario prints TAP-like lines; the host judges the serial log.
D=/sys/kernel/debug/kvmchurn
TR=

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }

# check DESCRIPTION COMMAND...: one line from a command's status.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# is DESCRIPTION GOT WANT
is() {
	if [ "$2" = "$3" ]; then ok "$1: $2"; else not_ok "$1: $2, want $3"; fi
}

# raw_field TAG NAME COLUMN: one field of the live raw file (columns from 1).
raw_field() {
	awk -F '\t' -v t="$1" -v n="$2" -v c="$3" \
		'$1 == t && $2 == n { print $c; found = 1; exit } END { if (!found) print "missing" }' "$D/raw"
}

# deltas OLD NEW: "hist:METRIC COUNT" and "counter:NAME VALUE" lines, NEW - OLD.
deltas() {
	awk -F '\t' '
		FNR == 1 { f++ }
		$1 == "hist" || $1 == "counter" {
			k = $1 ":" $2
			if (f == 1) { old[k] = $3; next }
			print k, $3 - old[k]
			seen[k] = 1
		}
		END { for (k in old) if (!(k in seen)) print k, "missing" }' "$1" "$2"
}

# d KEY: KEY's value in /tmp/kc.delta (written from deltas), "missing" if absent.
d() {
	while read -r k v; do
		[ "$k" = "$1" ] && { echo "$v"; return; }
	done </tmp/kc.delta
	echo missing
}

# tracefs: sets TR to the mounted tracefs (mounting it if needed).
tracefs() {
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -f "$t/kprobe_events" ] && { TR=$t; return 0; }
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || return 1
	[ -f /sys/kernel/tracing/kprobe_events ] && TR=/sys/kernel/tracing
}
