# known-splats.awk: a kernel log without the warnings that are the kernel's own
# races, not faults of what is tested: each "cut here" ... "end trace" block
# that holds one of the messages below is dropped whole, everything else is
# printed as it is. tests/lib/boot.sh runs it on the serial log before judging
# it, scenarios/90-dmesg.sh on dmesg (as /kvmchurn/known-splats.awk, busybox awk).
#  - "debugfs file owner did not clean up at exit": debugfs's full_proxy_open()
#    (6.12) when an open races rmmod in the instant between the module's last
#    reference going and its state becoming GOING, where try_module_get() fails
#    on a module that still looks live. 62-access races opens with rmmod on
#    purpose (seen on arm64 6.12 on 2026-12-03, and on the debug kernel on
#    2026-12-04, where panic_on_warn made it a panic: 62 turns that off for
#    its race); that the files are gone after rmmod it checks itself.
function known(s) { return index(s, "debugfs file owner did not clean up at exit") }
index($0, "------------[ cut here ]------------") { n = 0; inb = 1; drop = 0 }
inb {
	buf[++n] = $0
	if (known($0)) drop = 1
	if (index($0, "---[ end trace")) {
		if (!drop) for (i = 1; i <= n; i++) print buf[i]
		inb = 0
	}
	next
}
{ print }
END { if (inb && !drop) for (i = 1; i <= n; i++) print buf[i] }
