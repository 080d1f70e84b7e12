# judge.awk -v names="init 00-boot.sh ..." SERIAL-LOG: what a guest's serial log says of
# its scenarios (boot.sh's kc_vm_judge reads it). Counts come only from inside scenario
# blocks (@@KVMCHURN BEGIN NAME .. @@KVMCHURN END NAME rc=N), never from kernel or dmesg
# lines. Prints, a line each:
#   notok SCENARIO: LINE     each "not ok" line, with its scenario
#   kunit TEXT               each "# KUnit: " summary
#   scen NAME OK NOTOK RC CPUS SECS    each scenario of names, in that order ("none"
#                            and "? ?" where it never ended)
#   reason TEXT              each reason the boot fails: a scenario that bailed out
#                            (tests/lib/tap.sh), one without an end marker, one that
#                            exited non-zero, no final marker
#   ok N / nok N / cpus N    the totals, and the most CPUs a scenario saw
{ sub(/\r$/, "") }
index($0, "@@KVMCHURN FILE-") { next }
match($0, /@@KVMCHURN BEGIN [^ ]+/) { cur = substr($0, RSTART + 17, RLENGTH - 17); next }
match($0, /@@KVMCHURN END [^ ]+ rc=[0-9]+/) {
	split(substr($0, RSTART, RLENGTH), f, " "); rc[f[3]] = substr(f[4], 4); cur = ""
	if (match($0, / cpus=[0-9]+ secs=[0-9]+/)) {
		split(substr($0, RSTART + 1, RLENGTH - 1), g, /[ =]/); cpus[f[3]] = g[2]; secs[f[3]] = g[4]
		if (g[2] > maxcpus) maxcpus = g[2]
	}
	next
}
index($0, "@@KVMCHURN DONE") { done = 1; next }
cur != "" && /^ok( |$)/ { ok++; sok[cur]++ }
cur != "" && /^not ok( |$)/ { nok++; snok[cur]++; print "notok " cur ": " $0 }
cur != "" && /^# KUnit: / { print "kunit " substr($0, 3) }
cur != "" && /^Bail out!/ && !(cur in bail) { bail[cur] = substr($0, 11) }
END {
	n = split(names, w, " ")
	for (i = 1; i <= n; i++)
		print "scen " w[i] " " sok[w[i]] + 0 " " snok[w[i]] + 0 " " (w[i] in rc ? rc[w[i]] : "none") \
			" " (w[i] in cpus ? cpus[w[i]] " " secs[w[i]] : "? ?")
	for (i = 1; i <= n; i++)
		if (w[i] in bail) print "reason " w[i] " bailed out: " bail[w[i]]
	for (i = 1; i <= n; i++)
		if (!(w[i] in rc)) print "reason no end marker for " w[i]
		else if (rc[w[i]] != 0) print "reason " w[i] " exited " rc[w[i]]
	if (!done) print "reason no final marker"
	print "ok " ok + 0; print "nok " nok + 0; print "cpus " maxcpus + 0
}
