#!/bin/sh
# 60-profile (make bench-profile, not a test): where the unmatched exits' added
# cost goes. perf (Debian's, run through its own dynamic loader from
# /kvmchurn/perf) samples CPU 0, where forkexit and its children run, on
# cpu-clock with the kernel's call chains, while forkexit runs, in A (nothing
# loaded), F (the floor: kvmchurn's probes with empty handlers,
# tests/bench/floor), B (kvmchurn, filter=firecracker), V (B with
# PROFILE_ALIVE traced VMs alive, the pairing table and the records busy) and
# W (F with the same VMs alive: what the mechanism does with them).
# Each sample goes to a class by its call chain, read from the sampled
# instruction outwards: "handler" where a frame of kvmchurn's (kc_*) or the
# floor's (kf_*) handlers comes first, "mechanism" where a frame of the
# kernel's probe machinery does (PROFILE_MECH: the kprobe, kretprobe, rethook,
# fprobe and ftrace entries of the kernels of the bench, arm64's break and
# single step), and "nosym" where the sampled instruction is kernel code
# without a symbol (ftrace's trampolines, kprobes' single-step slots).
# A sample costs perf thousands of instructions, which the guest's clock
# counts too, so a class's share of the samples is what is kept: the same
# configuration's forkexit without perf, just before, says how many
# instructions an exit takes, and the class its share of them. That share does
# not move with what the rest of the kernel drifts by from round to round,
# which an end-to-end difference of F and A cannot resolve on x86_64.
# One "# profile CFG SAMPLES PARENT SYMBOL" line a (first matching frame,
# sampled symbol) pair, "# profile CFG plain NS" for the exit without perf;
# profile/report.awk (tests/bench/bench.sh profile) adds them up.
# shellcheck source=../../lib/guest/lib.sh
. /kvmchurn/lib.sh
. /kvmchurn/bench.conf # PROFILE_EXITS PROFILE_PERIOD PROFILE_ROUNDS PROFILE_ALIVE PROFILE_ALIVE_EXITS PROFILE_MECH
# shellcheck source=../configs.sh
. /kvmchurn/configs.sh # unload, config, FLOOR_SYMS
P=/kvmchurn/perf
# the loader is named by architecture: the one there
LD=$(echo "$P"/lib/ld-linux-*)
perf() { "$LD" --library-path "$P/lib" "$P/perf" "$@"; }

# profile CFG [EXITS]: forkexit without perf, then perf over forkexit in CFG's
# state: its samples by class
profile() {
	exits=${2:-$PROFILE_EXITS}
	if ! ns=$(forkexit "$exits"); then
		not_ok "forkexit ($1)"
		return 1
	fi
	echo "# profile $1 plain $ns"
	if ! perf record -q -g --kernel-callchains -e cpu-clock -c "$PROFILE_PERIOD" -C 0 \
		-o /tmp/perf.data -- forkexit "$exits" >/tmp/perf.out 2>&1; then
		not_ok "perf record ($1): $(tail -n 3 /tmp/perf.out)"
		return 1
	fi
	sed "s/^/# profile $1 ns /" /tmp/perf.out
	# -g none: the call chains find the parent, and are not printed
	perf report -i /tmp/perf.data --stdio --no-children -g none --sort parent,sym \
		-p "^(kc|kf)_|$PROFILE_MECH" -F sample,parent,sym 2>/tmp/report.err |
		awk -v c="$1" '$1 ~ /^[0-9]+$/ && NF >= 4 { s = $4; for (i = 5; i <= NF; i++) s = s "_" $i; print "# profile " c " " $1 " " $2 " " s }'
	rm -f /tmp/perf.data
}

echo "# profile floor $FLOOR_SYMS${FLOOR_PSYMS:+ kprobes $FLOOR_PSYMS}"
# where kprobes trap (a break and a single step: arm64) their handlers run with
# interrupts masked, and cpu-clock's samples wait for them to end
echo "# profile kprobes $(grep -q ' kprobe_ftrace_handler$' /proc/kallsyms && echo ftrace || echo trap)"
# call chains as deep as a class needs (a handler's callee, the handler, the kretprobe's
# pre-handler, kprobe's ftrace handler, the trampoline): a sample costs less
echo 12 >/proc/sys/kernel/perf_event_max_stack

aslr=$(cat /proc/sys/kernel/randomize_va_space)
echo 0 >/proc/sys/kernel/randomize_va_space # as make bench
r=1
while [ "$r" -le "$PROFILE_ROUNDS" ]; do
	for c in A F B; do
		config $c || { not_ok "round $r: configuration $c"; continue; }
		profile $c && ok "profile $c, round $r"
	done
	r=$((r + 1))
done

# V: B with PROFILE_ALIVE traced VMs alive, over PROFILE_ALIVE_EXITS exits
if [ "$PROFILE_ALIVE" -gt 0 ]; then
	config V
	alive_start "$PROFILE_ALIVE"
	if wait_for 3600 held "$PROFILE_ALIVE"; then
		echo "# profile alive $PROFILE_ALIVE pairs:$(raw_field pairs - 3) live:$(awk -F '\t' '$1 == "stats" { print $5 }' $D/vms)"
		r=1
		while [ "$r" -le "$PROFILE_ROUNDS" ]; do
			profile V "$PROFILE_ALIVE_EXITS" && ok "profile V, round $r"
			r=$((r + 1))
		done
		# the same VMs, kvmchurn swapped for the floor
		if config F; then
			r=1
			while [ "$r" -le "$PROFILE_ROUNDS" ]; do
				profile W "$PROFILE_ALIVE_EXITS" && ok "profile W, round $r"
				r=$((r + 1))
			done
		else
			not_ok "alive: configuration W"
		fi
		held "$PROFILE_ALIVE" || not_ok "alive: the VMs did not stay for the exits"
	else
		not_ok "alive: $(vms_alive) of $PROFILE_ALIVE VMs came up"
	fi
	alive_stop
	wait_for "$KC_WAIT" vms_gone || not_ok "alive: VMs left"
fi
unload
echo "$aslr" >/proc/sys/kernel/randomize_va_space
exit 0
