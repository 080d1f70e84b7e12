#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside a throwaway overlay of the bookworm chroot (tests/dkms/tier.sh), as root.
#   inside-deb.sh build     dpkg-buildpackage -us -uc -b in /kvmchurn/src; the .debs land
#                           in /kvmchurn; their contents are checked
#   inside-deb.sh install   install both packages, check that DKMS built and installed
#                           the module for every kernel with headers, then purge them and
#                           check that nothing is left
#   inside-deb.sh install-dkms   the same with kvmchurn-dkms alone (an older release,
#                           whose libc the client built on bookworm does not fit)
#   inside-deb.sh service   in a boot of the chroot with systemd as init (tier.sh's
#                           kc_overlay_boot): kvmchurn installed, its timer enabled, the
#                           textfile that Debian's node_exporter serves, the module not
#                           loaded and a raw file it cannot read, as systemd and the
#                           journal see them
# One TAP line a check.
# shellcheck disable=SC2015,SC2012,SC2016 # ok/not_ok return 0, so A && ok || not_ok is if/else; ls of known names; sh -c scripts in single quotes
set -u
# shellcheck source-path=SCRIPTDIR source=../lib/tap.sh
. /kvmchurn/src/tests/lib/tap.sh
has() { # has NAME FILE PATTERN: FILE (a listing) has a line matching PATTERN
	if grep -qE "$3" "$2"; then ok "$1"; else not_ok "$1"; fi
}
ver=$(make -s --no-print-directory -C /kvmchurn/src version)
arch=$(dpkg --print-architecture)
dkms_deb=/kvmchurn/kvmchurn-dkms_${ver}_all.deb
client_deb=/kvmchurn/kvmchurn_${ver}_$arch.deb

build() {
	cd /kvmchurn/src || exit 1
	check "dpkg-buildpackage -us -uc -b" dpkg-buildpackage -us -uc -b
	((tap_failed == 0)) || bail_out "no packages: dpkg-buildpackage failed"
	[[ -f $dkms_deb ]] && ok "built ${dkms_deb#/kvmchurn/}" || not_ok "built ${dkms_deb#/kvmchurn/}"
	[[ -f $client_deb ]] && ok "built ${client_deb#/kvmchurn/}" || not_ok "built ${client_deb#/kvmchurn/}"
	dpkg-deb -c "$dkms_deb" | awk '{ print $6 }' >/tmp/dkms.list
	dpkg-deb -c "$client_deb" | awk '{ print $6 }' >/tmp/client.list
	sed 's/^/# kvmchurn-dkms: /' /tmp/dkms.list
	sed 's/^/# kvmchurn: /' /tmp/client.list
	local f
	for f in dkms.conf Kbuild Makefile build.mk module/main.c module/compat.h module/kvmchurn_abi.h module/kvmchurn_rules.h; do
		has "kvmchurn-dkms has /usr/src/kvmchurn-$ver/$f" /tmp/dkms.list "^\./usr/src/kvmchurn-$ver/$f\$"
	done
	has "kvmchurn-dkms has the modprobe.d example" /tmp/dkms.list '^\./usr/share/doc/kvmchurn-dkms/examples/modprobe\.d/kvmchurn\.conf$'
	has "kvmchurn-dkms has the modules-load.d example" /tmp/dkms.list '^\./usr/share/doc/kvmchurn-dkms/examples/modules-load\.d/kvmchurn\.conf$'
	if grep -qE '\.(o|ko|cmd)$|/userspace/|/tests/' /tmp/dkms.list; then
		not_ok "kvmchurn-dkms holds no build product, client or test"
	else
		ok "kvmchurn-dkms holds no build product, client or test"
	fi
	cmp -s <(dpkg-deb --fsys-tarfile "$dkms_deb" | tar -xOf - "./usr/src/kvmchurn-$ver/dkms.conf") \
		/kvmchurn/src/dkms.conf && ok "its dkms.conf is the tree's" || not_ok "its dkms.conf is the tree's"
	has "kvmchurn has /usr/sbin/kvmchurn" /tmp/client.list '^\./usr/sbin/kvmchurn$'
	has "kvmchurn has the man page" /tmp/client.list '^\./usr/share/man/man8/kvmchurn\.8\.gz$'
	has "kvmchurn has the bash completion" /tmp/client.list '^\./usr/share/bash-completion/completions/kvmchurn$'
	has "kvmchurn has kvmchurn-export.service" /tmp/client.list '^\./lib/systemd/system/kvmchurn-export\.service$'
	has "kvmchurn has kvmchurn-export.timer" /tmp/client.list '^\./lib/systemd/system/kvmchurn-export\.timer$'
	has "kvmchurn has the service's command" /tmp/client.list '^\./usr/libexec/kvmchurn/export-textfile$'
	has "kvmchurn has /etc/default/kvmchurn-export" /tmp/client.list '^\./etc/default/kvmchurn-export$'
	has "kvmchurn has the Prometheus rules example" /tmp/client.list '^\./usr/share/doc/kvmchurn/examples/prometheus/kvmchurn\.rules\.yml$'
	dpkg-deb --ctrl-tarfile "$client_deb" | tar -xOf - ./conffiles >/tmp/conffiles 2>/dev/null
	sed 's/^/# conffiles: /' /tmp/conffiles
	has "/etc/default/kvmchurn-export is a conffile" /tmp/conffiles '^/etc/default/kvmchurn-export$'
	local dep
	dep=$(dpkg-deb -f "$dkms_deb" Depends)
	[[ $dep == *dkms* ]] && ok "kvmchurn-dkms depends on dkms ($dep)" || not_ok "kvmchurn-dkms depends on dkms ($dep)"
	[[ $(dpkg-deb -f "$dkms_deb" Architecture) == all ]] && ok "kvmchurn-dkms is arch all" ||
		not_ok "kvmchurn-dkms is arch all"
	[[ $(dpkg-deb -f "$client_deb" Version) == "$ver" && $(dpkg-deb -f "$dkms_deb" Version) == "$ver" ]] &&
		ok "both at version $ver (dkms.conf's)" || not_ok "both at version $ver (dkms.conf's)"
}

# the files of the system, but for what apt, dpkg, man-db and the logs keep of their own,
# dkms's signing key (made at its first signing, kept for later modules) and depmod's
# indexes, which dkms makes for a kernel whose image is not installed (checked above:
# they no longer name kvmchurn)
listing() {
	find / -xdev \( -path /proc -o -path /kvmchurn -o -path /tmp -o -path /var/log \
		-o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg \
		-o -path /var/lib/dkms/mok.key -o -path /var/lib/dkms/mok.pub -o -path /run \) -prune \
		-o -print | grep -vE '^(/usr)?/lib/modules/[^/]+/modules\.[a-z.]+$' | LC_ALL=C sort
}

install() { # install CLIENT(0|1)
	local with_client=$1 kernels k s ko debs=("$dkms_deb") pkgs=kvmchurn-dkms
	kernels=$(for k in /lib/modules/*/build/Makefile; do [[ -e $k ]] && k=${k#/lib/modules/} && echo "${k%%/*}"; done)
	printf "# kernels with headers: %s\n" "$(tr "\n" " " <<<"$kernels")"
	if ((with_client)); then
		debs+=("$client_deb") pkgs="kvmchurn $pkgs"
		[[ $(wc -w <<<"$kernels") -ge 2 ]] && ok "two or more kernels with headers" || not_ok "two or more kernels with headers"
		dpkg -s linux-headers-amd64 >/dev/null 2>&1 && ok "linux-headers-amd64 installed" || not_ok "linux-headers-amd64 installed"
	else
		[[ -n $kernels ]] && ok "a kernel with headers" || not_ok "a kernel with headers"
	fi
	listing >/tmp/before
	check "apt-get install $pkgs" apt-get -q -y install "${debs[@]}"
	for k in $kernels; do
		s=$(dkms status -m kvmchurn -v "$ver" -k "$k" 2>/dev/null)
		[[ $s == *": installed"* ]] && ok "dkms built and installed it for $k" || not_ok "dkms built and installed it for $k: '$s'"
		ko=$(ls /lib/modules/"$k"/updates/dkms/kvmchurn.ko* 2>/dev/null | head -n1)
		[[ -n $ko && $(modinfo -F version "$ko" 2>/dev/null) == "$ver" ]] && ok "$k: $ko, version $ver" ||
			not_ok "$k: an installed module of version $ver"
		if [[ ! -e /lib/modules/$k/modules.dep ]]; then
			# headers without the image: dkms 3.2+ leaves depmod to the image's install
			echo "# no modules.dep for $k (its image is not installed): depmod run here"
			depmod -a "$k"
		fi
		modprobe -n -S "$k" kvmchurn 2>/dev/null && ok "$k: modprobe finds it" || not_ok "$k: modprobe finds it"
	done
	if ((with_client)); then
		check "kvmchurn --version" sh -c "kvmchurn --version | grep -x 'kvmchurn $ver'"
		check "man page installed" test -s /usr/share/man/man8/kvmchurn.8.gz
		check "bash completion loads" bash -c '. /usr/share/bash-completion/completions/kvmchurn && complete -p kvmchurn'
		# the textfile service: installed, neither enabled nor started
		check "systemctl is-enabled kvmchurn-export.timer: disabled" \
			sh -c 'systemctl is-enabled kvmchurn-export.timer; [ "$(systemctl is-enabled kvmchurn-export.timer)" = disabled ]'
		check "systemctl is-enabled kvmchurn-export.service: static (the timer starts it)" \
			sh -c 'systemctl is-enabled kvmchurn-export.service; [ "$(systemctl is-enabled kvmchurn-export.service)" = static ]'
		check "dpkg: /etc/default/kvmchurn-export is a conffile of kvmchurn" \
			sh -c "dpkg-query -W -f '\${Conffiles}\n' kvmchurn | grep -E '^ /etc/default/kvmchurn-export [0-9a-f]{32}\$'"
		# silent, as the unit tier asks (no man(1) here: the page is checked above)
		check "systemd-analyze verify of the installed units" sh -c \
			'out=$(systemd-analyze verify --man=no kvmchurn-export.service kvmchurn-export.timer 2>&1); rc=$?; printf "%s\n" "$out"; [ $rc = 0 ] && [ -z "$out" ]'
		# the unit's command as systemd would run it, here where no module is loaded
		check "the unit's command without the module: exit 0, one line, kvmchurn_up 0" sh -c '
			set -a && . /etc/default/kvmchurn-export && KVMCHURN_EXPORT_FILE=/tmp/kvmchurn.prom && set +a &&
			echo "stale 1" >/tmp/kvmchurn.prom &&
			$(sed -n "s/^ExecStart=//p" /lib/systemd/system/kvmchurn-export.service) 2>/tmp/said &&
			cat /tmp/said && [ "$(wc -l </tmp/said)" = 1 ] && grep -qx "kvmchurn_up 0" /tmp/kvmchurn.prom &&
			! grep -q stale /tmp/kvmchurn.prom'
	fi
	# shellcheck disable=SC2086 # a list of names
	check "apt-get purge $pkgs" apt-get -q -y purge $pkgs
	for k in $kernels; do
		ls /lib/modules/"$k"/updates/dkms/kvmchurn.ko* >/dev/null 2>&1 && not_ok "$k: module left" ||
			ok "$k: module gone"
		grep -q kvmchurn "/lib/modules/$k/modules.dep" && not_ok "$k: modules.dep still lists it" ||
			ok "$k: modules.dep no longer lists it"
	done
	! dkms status -m kvmchurn 2>/dev/null | grep -q . && ok "dkms status knows no kvmchurn" || not_ok "dkms status knows no kvmchurn"
	! dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'kvmchurn*' 2>/dev/null | grep -qv '^un' &&
		ok "dpkg knows no kvmchurn package" || not_ok "dpkg knows no kvmchurn package"
	listing >/tmp/after
	if cmp -s /tmp/before /tmp/after; then
		ok "purge left nothing: the file tree is as before the install"
	else
		not_ok "purge left nothing: the file tree is as before the install"
		diff /tmp/before /tmp/after | sed 's/^/#   /' | head -n 40
	fi
}

# conf DIR: /etc/default/kvmchurn-export (read at each run) names DIR as the module's
conf() {
	sed -i "s|^KVMCHURN_EXPORT_DIR=.*|KVMCHURN_EXPORT_DIR=$1|" /etc/default/kvmchurn-export
}
# journal_of UNIT PRIOS: what UNIT's last run wrote to the journal at priorities PRIOS
# (journalctl -p: 4..4 warnings alone, 0..6 all but debug)
journal_of() {
	journalctl --no-pager -o cat -p "$2" "_SYSTEMD_INVOCATION_ID=$(systemctl show -P InvocationID "$1")"
}
# journal_has UNIT PRIOS REGEX: wait until UNIT's last run has a line matching REGEX at PRIOS.
# journald reads a unit's stderr stream on its own time, and before systemd 256
# `journalctl --sync` does not drain the streams: the unit can have failed and
# systemctl returned while its line is still in the socket (a red CI run saw that).
# (plain sh: the checks run it under sh -c)
journal_has() {
	n=300
	until journal_of "$1" "$2" | grep -qE "$3"; do
		[ $((n -= 1)) -gt 0 ] || return 1
		sleep 0.2
	done
}
# metrics: what node_exporter serves on the loopback
metrics() {
	python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:9100/metrics", timeout=10).read().decode())'
}

service() {
	local capture=/kvmchurn/src/tests/fixtures/x86_64-6.1-kill tf=/var/lib/prometheus/node-exporter/kvmchurn.prom
	local inv up0
	up0=$(printf '%s\n' '# HELP kvmchurn_up Whether kvmchurn export could read kvmchurn.ko: 0 when it could not (the journal of kvmchurn-export.service says why).' \
		'# TYPE kvmchurn_up gauge' 'kvmchurn_up 0')
	# (this runs as a unit of the boot, which is not over until it ends)
	check "systemd is PID 1 and multi-user.target is reached" sh -c \
		'cat /proc/1/comm; systemctl is-active multi-user.target; [ "$(cat /proc/1/comm)" = systemd ] && systemctl -q is-active multi-user.target'
	check "dpkg -i ${client_deb#/kvmchurn/}" dpkg -i "$client_deb"
	check "prometheus-node-exporter.service runs (Debian's, enabled by its package)" \
		wait_for 120 systemctl --quiet is-active prometheus-node-exporter.service
	check "kvmchurn-export.timer installed disabled and inactive" sh -c \
		'systemctl is-enabled kvmchurn-export.timer; systemctl is-active kvmchurn-export.timer;
		[ "$(systemctl is-enabled kvmchurn-export.timer)" = disabled ] && ! systemctl -q is-active kvmchurn-export.timer'
	check "systemctl show kvmchurn-export.timer: every 15 s, to 1 s" sh -c \
		'systemctl show -p TimersMonotonic -p AccuracyUSec kvmchurn-export.timer |
		tee /dev/stderr | grep -q "OnUnitActiveUSec=15s" && systemctl show -P AccuracyUSec kvmchurn-export.timer | grep -qx 1s'

	# a capture of the module stands in for debugfs: no module loads in a container
	conf "$capture"
	check "systemctl enable --now kvmchurn-export.timer" systemctl enable --now kvmchurn-export.timer
	check "the timer's first run writes the textfile" wait_for 120 test -s "$tf"
	check "the textfile is kvmchurn export's, byte for byte" sh -c \
		"kvmchurn -d $capture export --prometheus | cmp - $tf"
	check "kvmchurn-export.service succeeded, and said nothing" sh -c \
		"$(declare -f journal_of); systemctl show -p Result -p ExecMainStatus kvmchurn-export.service;
		journal_of kvmchurn-export.service 0..6 | tee /tmp/j;
		[ \"\$(systemctl show -P Result kvmchurn-export.service)\" = success ] && [ ! -s /tmp/j ]"
	inv=$(systemctl show -P InvocationID kvmchurn-export.service)
	check "the timer runs it again (a new invocation)" \
		wait_for 120 sh -c "[ \"\$(systemctl show -P InvocationID kvmchurn-export.service)\" != $inv ] && [ \"\$(systemctl show -P ActiveState kvmchurn-export.service)\" = inactive ]"
	check "node_exporter serves it: kvm_create_vm's count as exported, node_textfile_scrape_error 0" sh -c \
		"$(declare -f metrics); metrics >/tmp/m && want=\$(kvmchurn -d $capture export --prometheus |
		grep '^kvmchurn_duration_seconds_count{metric=\"kvm_create_vm\"} ') &&
		grep -E '^(node_textfile_scrape_error|kvmchurn_duration_seconds_count\{metric=\"kvm_create_vm\"\}) ' /tmp/m &&
		grep -qx 'node_textfile_scrape_error 0' /tmp/m && grep -qxF \"\$want\" /tmp/m"

	# the module not loaded: kvmchurn_up 0, one warning in the journal, the unit succeeds
	mkdir -p /run/kvmchurn-no-module
	conf /run/kvmchurn-no-module
	check "systemctl start kvmchurn-export.service, no module: succeeds" systemctl start kvmchurn-export.service
	check "its textfile: kvmchurn_up 0 alone" sh -c "cat $tf; [ \"\$(cat $tf)\" = \"$up0\" ]"
	check "the journal: one line, at warning, that says why and what was written" sh -c \
		"$(declare -f journal_of journal_has); re='^kvmchurn export: .*/run/kvmchurn-no-module.*; $tf now says kvmchurn_up 0\$';
		journal_has kvmchurn-export.service 4..4 \"\$re\"; journal_of kvmchurn-export.service 4..4 | tee /tmp/j;
		[ \$(wc -l </tmp/j) = 1 ] && grep -qE \"\$re\" /tmp/j &&
		[ -z \"\$(journal_of kvmchurn-export.service 3..3)\" ]"
	check "systemctl is-failed kvmchurn-export.service: no" sh -c '! systemctl is-failed kvmchurn-export.service'
	check "node_exporter serves kvmchurn_up 0 and no kvmchurn histogram" sh -c \
		"$(declare -f metrics); m=\$(metrics) && printf '%s\n' \"\$m\" | grep -x 'kvmchurn_up 0' &&
		! printf '%s\n' \"\$m\" | grep -q '^kvmchurn_duration_seconds'"

	# a raw file this client cannot read: kvmchurn_up 0, an error, the unit fails
	conf /kvmchurn/src/tests/fixtures/hand/v2
	check "systemctl start kvmchurn-export.service, a raw file of another version: fails" \
		sh -c '! systemctl start kvmchurn-export.service'
	check "systemctl is-failed kvmchurn-export.service: yes, status 2" sh -c \
		'systemctl is-failed kvmchurn-export.service && [ "$(systemctl show -P ExecMainStatus kvmchurn-export.service)" = 2 ]'
	check "the journal: one line, at error, that names the raw version" sh -c \
		"$(declare -f journal_of journal_has); re='version 2 of the raw format.*now says kvmchurn_up 0\$';
		journal_has kvmchurn-export.service 3..3 \"\$re\"; journal_of kvmchurn-export.service 3..3 | tee /tmp/j;
		[ \$(wc -l </tmp/j) = 1 ] && grep -qE \"\$re\" /tmp/j"
	check "its textfile: kvmchurn_up 0 alone" sh -c "[ \"\$(cat $tf)\" = \"$up0\" ]"

	# the interval, changed as the unit's comment says (systemctl edit writes this drop-in)
	mkdir -p /etc/systemd/system/kvmchurn-export.timer.d
	printf '[Timer]\nOnUnitActiveSec=\nOnUnitActiveSec=1min\n' >/etc/systemd/system/kvmchurn-export.timer.d/override.conf
	check "a drop-in sets the interval to 1 min" sh -c \
		'systemctl daemon-reload && systemctl show -p TimersMonotonic kvmchurn-export.timer | tee /dev/stderr | grep -q "OnUnitActiveUSec=1min"'
	systemctl reset-failed kvmchurn-export.service
	check "apt-get purge kvmchurn: the timer is gone" sh -c \
		'apt-get -q -y purge kvmchurn && systemctl daemon-reload && ! systemctl cat kvmchurn-export.timer'
}

case ${1:-} in
build) build ;;
install) install 1 ;;
install-dkms) install 0 ;;
service) service ;;
*) echo "usage: inside-deb.sh build|install|install-dkms|service" >&2; exit 64 ;;
esac
tap_done
