#!/bin/sh
# 71-fault-readers-writers (debug kernel): during a load, three readers read
# every file in loops while writers change filter, enable and reset and a
# fourth writer sends bad writes. No read fails, every good write is taken,
# every bad one refused; afterwards the counts are whole (no negative or torn
# value, every histogram's slots add up to its count) and reset still works.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
N=30
rm -f /tmp/kc.stop /tmp/kc.rerr /tmp/kc.werr /tmp/kc.bad /tmp/kc.n.*

# loop NAME COMMAND...: COMMAND again and again until /tmp/kc.stop exists;
# the number of rounds goes to /tmp/kc.n.NAME.
loop() {
	name=$1
	shift
	k=0
	while [ ! -e /tmp/kc.stop ]; do
		"$@"
		k=$((k + 1))
	done
	echo $k >"/tmp/kc.n.$name"
}
# put FILE DATA: a write that must be taken
put() { printf '%s\n' "$2" >"$D/$1" 2>>/tmp/kc.werr || echo "write '$2' to $1 refused" >>/tmp/kc.werr; }
write_filter() { for v in '*' 'firecracker other' firecracker; do put filter "$v"; done; }
write_enable() { put enable 0; sleep 0.05; put enable 1; sleep 0.2; }
write_reset() { put reset 1; sleep 0.3; }
# refuse FILE DATA: a write that must fail
refuse() { ! printf '%s\n' "$2" >"$D/$1" 2>/dev/null || echo "bad write '$2' to $1 taken" >>/tmp/kc.bad; }
write_bad() {
	refuse enable 2
	refuse reset 0
	refuse filter 0123456789abcdef
	refuse filter '* firecracker'
	refuse enable yes
}

check "insmod kvmchurn.ko" insmod "$KVMCHURN_KO"
kvmchurn load -n $N -j 4 --vcpus 2 --irqfds 8 --mem 16 >/tmp/kc.bg 2>&1 &
bg=$!
pids=''
for r in 1 2 3; do
	loop "reader$r" read_all &
	pids="$pids $!"
done
loop filter write_filter &
pids="$pids $!"
loop enable write_enable &
pids="$pids $!"
loop reset write_reset &
pids="$pids $!"
loop bad write_bad &
pids="$pids $!"
if wait $bg; then ok "kvmchurn load -n $N -j 4 beside the readers and writers"; else not_ok "the load: exit $?"; fi
sed 's/^/# /' /tmp/kc.bg
touch /tmp/kc.stop
# shellcheck disable=SC2086 # a list of pids
wait $pids
for n in reader1 reader2 reader3 filter enable reset bad; do
	rounds=$(cat "/tmp/kc.n.$n" 2>/dev/null || echo 0)
	check "$n ran ($rounds rounds)" [ "$rounds" -gt 0 ]
done
check "no read failed" [ ! -s /tmp/kc.rerr ]
[ ! -s /tmp/kc.rerr ] || head -n 5 /tmp/kc.rerr | sed 's/^/# /'
check "every good write was taken" [ ! -s /tmp/kc.werr ]
[ ! -s /tmp/kc.werr ] || head -n 5 /tmp/kc.werr | sed 's/^/# /'
check "every bad write was refused" [ ! -s /tmp/kc.bad ]
[ ! -s /tmp/kc.bad ] || head -n 5 /tmp/kc.bad | sed 's/^/# /'

put enable 1
put filter firecracker
quiet
cp "$D/raw" /tmp/kc.final
torn=$(awk -F '\t' '($1 == "hist" || $1 == "counter") && ($3 !~ /^[0-9]+$/ || $3 + 0 > 8 * '$N') { print $1 ":" $2 "=" $3 }' /tmp/kc.final)
is "every count in [0, $((8 * N))]" "${torn:-yes}" yes
slots_whole "every histogram's slots add up to its count" /tmp/kc.final
is "pairing entries in use at rest" "$(raw_field pairs - 3)" 0
put reset 1
is "reset afterwards: kvm_create_vm" "$(raw_field hist kvm_create_vm 3)" 0
is "reset afterwards: exit counter" "$(raw_field counter exit 3)" 0
check "rmmod kvmchurn" rmmod kvmchurn
exit 0
