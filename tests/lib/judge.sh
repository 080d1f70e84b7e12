# shellcheck shell=bash
# Judging a boot (sourced by boot.sh): the files the guest handed back, its serial log's
# scenario blocks (judge.awk), the kernel's own text, and the verdict line.

# Kernel text that fails a run, and the known harmless lines (notes/kernel-matrix.md);
# the known harmless warnings, whole blocks, are guest/known-splats.awk's.
KC_BAD='Kernel panic|BUG:|Oops|WARNING:|Call Trace|KASAN|UBSAN|possible circular locking'
# What only the debug kernel's detectors print.
KC_BAD_DEBUG='possible recursive locking|inconsistent lock state|suspicious RCU usage|unreferenced object|DEBUG_LOCKS_WARN|BUG: sleeping function|ODEBUG:'
KC_HARMLESS='loading out-of-tree module taints kernel|module verification failed|Skipping BTF generation|hrtimer: interrupt took|user requested TSC rate below hardware speed'

# kc_handback LOG OUTDIR: extract the files the guest sent with kvmchurn-put; print one
# line per file that did not arrive whole.
kc_handback() {
	local log=$1 out=$2 tmp meta n name kind size sum
	tmp=$(mktemp -d "$KVMCHURN_CACHE/tmp.XXXXXX")
	# the same name checks as the guest's: no empty part, none starting with a dot
	awk -v dir="$tmp" '
		{ sub(/\r$/, ""); i = index($0, "@@KVMCHURN FILE-"); if (!i) next; $0 = substr($0, i) }
		$3 !~ /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/ { next }
		$2 == "FILE-BEGIN" { if (!($3 in num)) num[$3] = ++n; f = dir "/" num[$3]
			print $3, $4, $5, $6 > (f ".meta"); close(f ".meta")
			close(f ".b64"); printf "" > (f ".b64"); next }
		!($3 in num) { next }
		$2 == "FILE-DATA" { print $4 > (dir "/" num[$3] ".b64"); next }
		$2 == "FILE-END" { f = dir "/" num[$3] ".end"; printf "" > f; close(f) }
	' "$log"
	for meta in "$tmp"/*.meta; do
		[[ -e $meta ]] || continue
		n=${meta%.meta}
		read -r name kind size sum <"$meta"
		if [[ ! -e $n.end ]]; then
			echo "file $name cut short"
		elif ! base64 -d <"$n.b64" >"$n.data" 2>/dev/null ||
			[[ $(stat -c %s "$n.data") != "$size" || $(md5sum <"$n.data" | cut -d' ' -f1) != "$sum" ]]; then
			echo "file $name damaged"
		else
			mkdir -p "$(dirname "$out/$name")"
			rm -rf "${out:?}/$name"
			if [[ $kind == tar ]]; then
				mkdir "$out/$name"
				tar -xmf "$n.data" -C "$out/$name" --no-same-owner # -m: the guest clock is not ours
			else
				mv "$n.data" "$out/$name"
			fi
		fi
	done
	rm -rf "$tmp"
}

# kc_bad_re ID: what fails a boot of ID: KC_BAD, and KC_BAD_DEBUG on the debug kernel.
kc_bad_re() {
	if kc_is_debug "$1"; then echo "$KC_BAD|$KC_BAD_DEBUG"; else echo "$KC_BAD"; fi
}

# kc_kernel_bad ID LOG: the kernel's lines of LOG that fail a boot (kc_bad_re), less the
# harmless ones, each once.
kc_kernel_bad() {
	local badre
	badre=$(kc_bad_re "$1")
	tr -d '\r' <"$2" | grep -v '@@KVMCHURN FILE-DATA' | awk -f "$KC_LIB/guest/known-splats.awk" |
		grep -E "$badre" | grep -vE "$KC_HARMLESS" | awk '!seen[$0]++' || true
}

# kc_first_bad ID BAD: what the first of BAD's lines (kc_kernel_bad's) says is wrong.
kc_first_bad() { grep -oE "$(kc_bad_re "$1")" <<<"$2" | head -n1; }

# kc_debug_verdicts ID JUDGED BAD QRC: the debug kernel's named tests, a verdict line each:
# every scenario (the fault scenarios are tests of their own), then the kernel's log.
kc_debug_verdicts() {
	local id=$1 judged=$2 bad=$3 qrc=$4 scen sok snok src scpus ssecs line
	sed -n 's/^scen //p' <<<"$judged" | while read -r scen sok snok src scpus ssecs; do
		[[ $snok == 0 && $src == 0 ]] && line=PASS || line=FAIL
		echo "    $line $scen: $sok ok, $snok not ok ($scpus CPUs, $ssecs s)"
	done
	local klog="kernel log${KC_OPT_ARGS:+ ($KC_OPT_ARGS)}${KC_ICOUNT_BOOT:+ (icount)}"
	if [[ -n $bad ]]; then
		echo "    FAIL $klog: $(kc_first_bad "$id" "$bad")"
	elif [[ $qrc != 0 ]]; then
		echo "    FAIL $klog: qemu exited $qrc"
	else
		echo "    PASS $klog: no KASAN, UBSAN, lockdep, kmemleak, WARNING or BUG report"
	fi
}

# kc_vm_judge ID LOG QRC SECS: the verdict of ID's boot whose serial log is LOG (QEMU's
# status QRC, SECS seconds; KC_VM_FROM says where the module came from and how it was
# booted): the guest's files handed back into $KC_OPT_OUT/ID, its verdict file there
# (unless --no-verdict), and the verdict line. Returns KC_FAIL for a FAIL.
kc_vm_judge() {
	local id=$1 log=$2 qrc=$3 secs=$4 reasons=() line judged ok nok cpus bad scen
	local -a expected notok
	rm -rf "${KC_OPT_OUT:?}/$id"
	while read -r line; do reasons+=("$line"); done < <(kc_handback "$log" "$KC_OPT_OUT/$id")
	mapfile -t expected < <(echo init && kc_scenarios "$id" | sed 's#.*/##' | LC_ALL=C sort)
	judged=$(awk -v names="${expected[*]}" -f "$KC_LIB/judge.awk" "$log")
	ok=$(sed -n 's/^ok //p' <<<"$judged")
	nok=$(sed -n 's/^nok //p' <<<"$judged")
	cpus=$(sed -n 's/^cpus //p' <<<"$judged")
	mapfile -t notok < <(sed -n 's/^notok //p' <<<"$judged")
	if [[ -s $log.deadline ]]; then
		reasons=("$(cat "$log.deadline")" "${reasons[@]}")
		# where the vCPUs were at the deadline (the registers: $log.where.hang)
		[[ ! -s $log.where ]] || sed 's/^/    | hung: /' "$log.where"
	else
		case $qrc in
		0) ;;
		124 | 137) reasons=("timed out after $((KC_OPT_TIMEOUT + 60)) s, and the watcher did not end it" "${reasons[@]}") ;;
		*) reasons=("qemu exited $qrc" "${reasons[@]}") ;;
		esac
	fi
	while read -r line; do reasons+=("$line"); done < <(sed -n 's/^reason //p' <<<"$judged")
	((nok == 0)) || reasons+=("$nok not ok")
	((ok > 0)) || reasons+=("no ok line")
	bad=$(kc_kernel_bad "$id" "$log")
	[[ -z $bad ]] || reasons+=("kernel says: $(kc_first_bad "$id" "$bad")")
	! kc_is_debug "$id" || kc_debug_verdicts "$id" "$judged" "$bad" "$qrc"
	local kunit depth verdict=PASS
	((${#reasons[@]} == 0)) || verdict=FAIL
	kunit=$(sed -n 's/^kunit //p' <<<"$judged" | tail -n1)
	# which scenarios ran: "all", or their numbers where a choice left some out (and
	# always in the icount boot, which runs a few)
	depth=all
	[[ -z $(kc_scenario_globs "$id") && -z ${KC_ICOUNT_BOOT:-} ]] ||
		depth=$(kc_scenarios "$id" | sed 's|.*/||; s|-.*||' | sort | paste -sd ' ')
	# the verdict stays with the files handed back (tests/lib/compatibility.sh reads it)
	mkdir -p "$KC_OPT_OUT/$id"
	((!KC_OPT_VERDICT)) || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$KC_KREL" "$KC_PKGVER" \
		"${KC_SUITES%% *}" "$verdict" "$ok" "$nok" "$depth" >"$KC_OPT_OUT/$id/verdict"
	local how="$secs s, $cpus CPUs"
	[[ $depth == all ]] || how+="; scenarios $depth"
	if [[ $verdict == PASS ]]; then
		echo "PASS $id $KC_KREL$KC_VM_FROM: $ok ok, 0 not ok ($how)${kunit:+; $kunit}"
		echo "    log: $log"
		return 0
	fi
	for scen in "${notok[@]}"; do echo "    $scen"; done
	[[ -z $bad ]] || head -n 10 <<<"$bad" | sed 's/^/    | /'
	echo "    log: $log"
	line=$(printf '%s; ' "${reasons[@]}")
	echo "FAIL $id $KC_KREL$KC_VM_FROM: $ok ok, $nok not ok ($how)${kunit:+; $kunit} (${line%; })"
	return "$KC_FAIL"
}
