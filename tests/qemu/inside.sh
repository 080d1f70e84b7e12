#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside a throwaway overlay of the trixie chroot with QEMU (tests/qemu/tier.sh), as
# root: a live migration between two TCG QEMUs over 127.0.0.1, read by
# `kvmchurn downtime --follow` while it happens. /kvmchurn/kvmchurn is the client; the
# logs are left in /kvmchurn/out. One TAP line a check.
# shellcheck disable=SC2015,SC2317 # ok/not_ok return 0, so A && ok || not_ok is if/else; cleanup runs from the trap
set -u
kc=/kvmchurn/kvmchurn
out=/kvmchurn/out
# shellcheck source-path=SCRIPTDIR source=../lib/tap.sh
. /kvmchurn/tap.sh
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

# qmp SOCKET JSON...: send the commands after qmp_capabilities; print the replies
qmp() {
	local sock=$1
	shift
	{ echo '{"execute":"qmp_capabilities"}'; printf '%s\n' "$@"; sleep 0.3; } |
		socat -t 2 - "UNIX-CONNECT:$sock" 2>/dev/null | grep -v '"QMP"'
}

mkdir -p "$out"
cd "$out" || exit 1
ver=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
echo "# qemu $ver"
if printf '%s\n8.2\n' "$ver" | sort -V -C; then bail_out "QEMU $ver is 8.2 or later"; fi
ok "QEMU $ver is 8.2 or later"
port=$((20000 + $$ % 20000))
common=(-accel tcg -machine pc -m 64 -nographic -nodefaults -display none -msg timestamp=on)

# the destination traces from the start; the source gets its events over QMP
qemu-system-x86_64 "${common[@]}" -trace 'vmstate_downtime*' -D dst.log \
	-qmp unix:dst.qmp,server=on,wait=off -incoming "tcp:127.0.0.1:$port" >dst.out 2>&1 &
pids+=($!)
qemu-system-x86_64 "${common[@]}" -D src.log -qmp unix:src.qmp,server=on,wait=off >src.out 2>&1 &
pids+=($!)
wait_for 10 test -S src.qmp -a -S dst.qmp || bail_out "two QEMUs up"
ok "two QEMUs up"

got=$("$kc" downtime --qmp src.qmp --enable 2>&1)
rc=$?
echo "# $got"
[[ $rc == 0 && $got == "enabled 3 events: "* && $got == *vmstate_downtime_checkpoint* &&
	$got == *vmstate_downtime_save* && $got == *vmstate_downtime_load* ]] &&
	ok "--qmp --enable switches the 3 events on" || not_ok "--qmp --enable switches the 3 events on (exit $rc)"

: >>src.log
"$kc" downtime --follow --json src.log >follow.json 2>follow.err &
follow=$!
pids+=("$follow")
sleep 0.5
reply=$(qmp src.qmp "{\"execute\":\"migrate\",\"arguments\":{\"uri\":\"tcp:127.0.0.1:$port\"}}")
while IFS= read -r line; do echo "# migrate: $line"; done <<<"$reply"
status() { qmp src.qmp '{"execute":"query-migrate"}' | tee query.json | grep -q '"status": *"completed"'; }
wait_for 60 status || { sed "s/^/# /" query.json; bail_out "the migration completed"; }
ok "the migration completed"
qmp_ms=$(grep -o '"downtime": *[0-9]*' query.json | grep -o '[0-9]*$')
echo "# query-migrate downtime: $qmp_ms ms"

wait_for 10 grep -q '"side":"src"' follow.json && ok "--follow printed the migration as it completed" ||
	not_ok "--follow printed the migration as it completed"
grep -q '"side":"src","mode":"precopy","complete":true' follow.json && ok "it is a complete src precopy" ||
	{ not_ok "it is a complete src precopy"; sed 's/^/# /' follow.json; }
us=$(grep -o '"total_us":[0-9]*' follow.json | head -n1 | grep -o '[0-9]*$')
echo "# --follow: total_us $us"
[[ -n $us && -n $qmp_ms ]] && (( (us + 500) / 1000 - qmp_ms <= 1 && qmp_ms - (us + 500) / 1000 <= 1 )) &&
	ok "its total ($us us) is QMP's downtime ($qmp_ms ms) within 1 ms" ||
	not_ok "its total (${us:-none} us) is QMP's downtime (${qmp_ms:-none} ms) within 1 ms"
kill -INT "$follow"
wait "$follow"
rc=$?
[[ $rc == 0 ]] && ok "--follow stops on SIGINT with status 0" || not_ok "--follow stops on SIGINT with status 0 (exit $rc)"
[[ $(grep -c . follow.json) == 1 ]] && ok "--follow printed one object" || not_ok "--follow printed $(grep -c . follow.json) objects"

# the whole logs afterwards: both sides, complete
wait_for 10 grep -q 'dst-precopy-bh-vm-started' dst.log
"$kc" downtime --json src.log dst.log >all.json
rc=$?
[[ $rc == 0 ]] && ok "downtime src.log dst.log" || not_ok "downtime src.log dst.log (exit $rc)"
[[ $(grep -o '"complete":true' all.json | wc -l) == 2 && $(grep -o '"side":"dst","mode":"precopy","complete":true' all.json | wc -l) == 1 ]] &&
	ok "two complete migrations, src and dst" || { not_ok "two complete migrations, src and dst"; head -c 2000 all.json | sed 's/^/# /'; }
devs=$(grep -o '"op":"save"' all.json | wc -l)
[[ $devs -ge 10 ]] && ok "the source's device saves are there ($devs)" || not_ok "the source's device saves are there ($devs)"
"$kc" downtime src.log dst.log >all.txt && sed 's/^/# /' all.txt | head -n 30

got=$("$kc" downtime --qmp src.qmp --disable 2>&1)
rc=$?
[[ $rc == 0 && $got == "disabled 3 events: "* ]] && ok "--qmp --disable switches them off" ||
	not_ok "--qmp --disable switches them off (exit $rc: $got)"
tap_done
