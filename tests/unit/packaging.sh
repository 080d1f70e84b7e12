#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What the packages and the install carry besides the code, checked against the code:
# the one version (dkms.conf) in debian/changelog and the client; the bash completion's
# commands, options and metrics against the client's own help; the modprobe.d example's
# parameters against the module's. The tests/dkms tier builds and installs the packages.
#
# Options: tests/unit/lib.sh's unit_options (--client).
#
# One TAP line a test (tests/lib/tap.sh), then "packaging: N passed, N failed".

set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
suite_setup "$@" || exit 2
words() { tr -s '[:space:]' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# the version
ver=$(make -s --no-print-directory -C "$top" version)
result "debian/changelog's version is dkms.conf's" "$ver" \
	"$(sed -n '1s/^kvmchurn (\([^)]*\)).*/\1/p' "$top/debian/changelog")"
result "kvmchurn --version is dkms.conf's" "kvmchurn $ver" "$("$client" --version)"

# what a build leaves in the tree: one list (build.mk), which git must ignore too
products=$(make -s --no-print-directory -C "$top" products | words)
if [[ -f $top/.gitignore ]]; then
	result "every product of build.mk's KC_PRODUCTS is in .gitignore" "$products" \
		"$(grep -xF -f <(tr ' ' '\n' <<<"$products") "$top/.gitignore" | words)"
else
	skip_test "every product of build.mk's KC_PRODUCTS is in .gitignore" "a tree without .gitignore (not a git checkout)"
fi

# README's sample: each of its lines is one of `kvmchurn summary` on the fixture it names
sample=$(awk '/^\$ kvmchurn summary$/ { on = 1; next } on && /^```$/ { exit } on && $0 != "..."' "$top/README.md")
fixture=$(grep -o 'tests/fixtures/[a-z0-9_.-]*' "$top/README.md" | head -n1)
result "README's sample is kvmchurn summary of $fixture" "$sample" \
	"$(NO_COLOR=1 "$client" -d "$top/$fixture" summary | grep -xF -f <(printf '%s\n' "$sample"))"

# the completion, loaded as bash-completion loads it
# shellcheck source-path=SCRIPTDIR source=../../completion/kvmchurn.bash
. "$top/completion/kvmchurn.bash"
result "completion loads and binds _kvmchurn" "complete -F _kvmchurn kvmchurn" "$(complete -p kvmchurn)"
cmds=$("$client" help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' | words)
result "completion's commands are kvmchurn help's" "$cmds" "$(words <<<"$_kvmchurn_commands")"
# a command's options: the first words of its help's option lines ("  -h, --help ...")
opts_of() {
	"$client" help "$1" | awk '/^  +-/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
		if (w ~ /^--?[a-z][a-z-]*$/) print w; else break } }' | words
}
for c in $cmds; do
	[[ $c == help ]] && continue
	result "completion's options of $c are its help's" "$(opts_of "$c")" "$(_kvmchurn_options "$c" | words)"
done
metrics=$("$client" help show | awk '/^Metrics:/ { on = 1; sub(/^Metrics:/, "") } on && /^$/ { exit } on' |
	tr ',;.' '   ' | words)
result "completion's metrics are kvmchurn help show's" "$metrics" "$(_kvmchurn_metrics "$client" | words)"
result "show --list has the metrics of help show" "$metrics" "$("$client" show --list | cut -f1 | words)"

complete_line() { # complete_line WORD...: what completing the last word offers
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_kvmchurn
	printf '%s\n' "${COMPREPLY[@]}" | words
}
result "completes a command" "show snapshot summary" "$(complete_line kvmchurn s)"
result "completes a command after -d DIR" "diff disable downtime dump" "$(complete_line kvmchurn -d /tmp d)"
result "completes a metric of show" "exit_files exit_mmap exit_to_reap exit_to_reaped" "$(complete_line "$client" show exit_)"
result "completes no metric where the client cannot be run" "" "$(complete_line "$top/no-such-client" show exit_)"
result "completes --end's values" "close exit kill term" "$(complete_line kvmchurn load -n 5 --end '')"
result "completes --backing's values" "hugetlb" "$(complete_line kvmchurn load --backing h)"
result "completes load's options" "--term-default --timeout --together" "$(complete_line kvmchurn load --t)"
result "completes help's command" "diff disable downtime dump" "$(complete_line kvmchurn help d)"
result "offers nothing for a count" "" "$(complete_line kvmchurn load -n '')"
result "completes the global options" "--help --version" "$(complete_line kvmchurn --)"

# the modprobe.d example sets only parameters the module has
params=$(sed -n 's/^module_param(\([a-z_]*\),.*/\1/p; s/^module_param_named(\([a-z_]*\),.*/\1/p; s/^module_param_cb(\([a-z_]*\),.*/\1/p' "$top/module/main.c" | words)
used=$(sed -n 's/^options kvmchurn //p' "$top/examples/modprobe.d/kvmchurn.conf" | tr ' ' '\n' | sed 's/=.*//' | words)
result "the modprobe.d example's parameters are the module's" "" "$(comm -13 <(tr ' ' '\n' <<<"$params") <(tr ' ' '\n' <<<"$used") | words)"
result "the modules-load.d example names the module" "kvmchurn" "$(grep -v '^#' "$top/examples/modules-load.d/kvmchurn.conf" | words)"
# each filter name a comm can really have (at most 15 characters)
long=$(sed -n 's/^options kvmchurn .*filter=\([^ ]*\).*/\1/p' "$top/examples/modprobe.d/kvmchurn.conf" |
	tr ',' '\n' | awk 'length($0) > 15' | words)
result "the example's filter names are 15 characters or fewer" "" "$long"

# ---- the first make on a host without the kernel's headers ------------------------
for target in module kunit; do
	make -s --no-print-directory -C "$top" "$target" KVER=0.0.0-none >"$tmp/make.out" 2>"$tmp/make.err"
	rc=$?
	((rc == 2)) || problems+=("make $target: exit $rc, want 2")
	[[ -s $tmp/make.out ]] && problems+=("make $target printed on stdout: $(head -c 200 "$tmp/make.out")")
	printf '%s\n' "kvmchurn: /lib/modules/0.0.0-none/build is not a kernel build tree: install the headers of kernel 0.0.0-none (Debian: apt install linux-headers-0.0.0-none), or point KDIR= at a built kernel tree" >"$tmp/want"
	grep -v '^make\(\[[0-9]*\]\)\?: \*\*\*' "$tmp/make.err" | cmp -s - "$tmp/want" ||
		problems+=("make $target: not the one line naming linux-headers-0.0.0-none and KDIR:" "$(head -c 400 "$tmp/make.err")")
done
finish "make without the kernel's headers: one line, the package to install, or KDIR="

# ---- kvmchurn-export.service and .timer (systemd/), as make install-client puts them --
# Installed into a folder of its own, with every path in it, so that the units name
# programs that are there (systemd-analyze verify checks that they are).
inst=$tmp/inst
make -s --no-print-directory -C "$top" install-client PREFIX="$inst/usr" SYSCONFDIR="$inst/etc" \
	SYSTEMDUNITDIR="$inst/units" >"$tmp/make.out" 2>&1 || problems+=("make install-client: exit $?" "$(tail -n 5 "$tmp/make.out")")
unit=$inst/units/kvmchurn-export.service timer=$inst/units/kvmchurn-export.timer
envfile=$inst/etc/default/kvmchurn-export
for f in "$unit" "$timer" "$envfile"; do [[ -f $f ]] || problems+=("no ${f#"$inst"/}"); done
[[ -x $inst/usr/libexec/kvmchurn/export-textfile ]] || problems+=("no usr/libexec/kvmchurn/export-textfile")
want_eq "ExecStart" "$inst/usr/libexec/kvmchurn/export-textfile $inst/usr/sbin/kvmchurn" "$(sed -n 's/^ExecStart=//p' "$unit")"
want_eq "EnvironmentFile" "-$envfile" "$(sed -n 's/^EnvironmentFile=//p' "$unit")"
finish "make install-client: kvmchurn-export.service and .timer, their command, /etc/default/kvmchurn-export"

# systemd-analyze verify: silent, exit 0 (it says some errors, such as a bad Type=, with
# exit 0). The man page of Documentation= is the one installed (MANPATH), or without
# man(1) (a package build's chroot), its file.
if ! command -v systemd-analyze >/dev/null; then
	problems+=("no systemd-analyze: apt-get install systemd (debian/control Build-Depends it)")
else
	man=no
	command -v man >/dev/null && man=yes
	MANPATH=$inst/usr/share/man systemd-analyze verify --man="$man" "$unit" "$timer" >"$tmp/verify" 2>&1
	rc=$?
	want_rc 0
	[[ -s $tmp/verify ]] && problems+=("systemd-analyze verify --man=$man says:" "$(cat "$tmp/verify")")
	if [[ $man == no ]]; then
		while read -r page; do
			[[ -f $inst/usr/share/man/man${page##*.}/$page ]] || problems+=("Documentation=: no man page $page installed")
		done < <(sed -n 's/^Documentation=man:\([^(]*\)(\([0-9]\)).*/\1.\2/p' "$unit" "$timer")
	fi
fi
finish "systemd-analyze verify kvmchurn-export.service kvmchurn-export.timer"

# the timer: started with itself, then 15 s after each run began, to the second; it
# alone is enabled (WantedBy), the service has no [Install] (static)
want_eq "the timer's times" "OnActiveSec=0 OnUnitActiveSec=15s AccuracySec=1s WantedBy=timers.target" \
	"$(grep -E '^(On[A-Za-z]+Sec|AccuracySec|WantedBy)=' "$timer" | tr '\n' ' ' | sed 's/ $//')"
want_eq "the service's [Install]" "" "$(grep -E '^\[Install\]' "$unit")"
finish "kvmchurn-export.timer: every 15 s; the service is static"

# the environment file sets what export-textfile reads, no more
result "/etc/default/kvmchurn-export sets the variables export-textfile reads" \
	"$(grep -o 'KVMCHURN_EXPORT_[A-Z]*' "$top/systemd/export-textfile" | words)" \
	"$(sed -n 's/^\(KVMCHURN_EXPORT_[A-Z]*\)=.*/\1/p' "$envfile" | words)"

# export_unit [VAR=VALUE...]: the unit's ExecStart as systemd runs it: the environment
# file's variables, then VAR=VALUE (KVMCHURN_EXPORT_DIR, _FILE); stdout in $tmp/out,
# stderr (the journal) in $tmp/err, the status in rc.
export_unit() {
	local cmd
	read -r -a cmd < <(sed -n 's/^ExecStart=//p' "$unit")
	# shellcheck source=/dev/null disable=SC2163 # the installed file; export VAR=VALUE...
	(set -a && . "$envfile" && export "$@" && umask 022 && exec "${cmd[@]}") >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
tf=$tmp/textfile
mkdir -p "$tf" "$tmp/no-module"
up0='# HELP kvmchurn_up Whether kvmchurn export could read kvmchurn.ko: 0 when it could not (the journal of kvmchurn-export.service says why).
# TYPE kvmchurn_up gauge
kvmchurn_up 0'
lines() { if [[ -s $tmp/err ]]; then wc -l <"$tmp/err"; else echo 0; fi; }

# the module loaded: its numbers, as kvmchurn export writes them, and nothing said
capture=$top/tests/fixtures/x86_64-6.1-kill
export_unit KVMCHURN_EXPORT_DIR="$capture" KVMCHURN_EXPORT_FILE="$tf/kvmchurn.prom"
want_rc 0
want_same out empty
want_same err empty
"$client" -d "$capture" export >"$tmp/want.prom"
want_same textfile/kvmchurn.prom "$tmp/want.prom"
finish "the unit's command, the module loaded: the textfile is kvmchurn export's, nothing said"

# the module not loaded: kvmchurn_up 0 in place of the old numbers, one line, success
export_unit KVMCHURN_EXPORT_DIR="$tmp/no-module" KVMCHURN_EXPORT_FILE="$tf/kvmchurn.prom"
want_rc 0
want_same out empty
want_eq "lines said" 1 "$(lines)"
want_grep err "^kvmchurn export: cannot open $tmp/no-module/raw: .*; $tf/kvmchurn.prom now says kvmchurn_up 0\$"
want_eq "the textfile" "$up0" "$(cat "$tf/kvmchurn.prom")"
want_eq "its mode" 644 "$(stat -c %a "$tf/kvmchurn.prom")"
want_eq "the textfile's folder" kvmchurn.prom "$(ls -A "$tf")"
prom_ok "$tf/kvmchurn.prom"
export_unit KVMCHURN_EXPORT_DIR="$tmp/no-module" KVMCHURN_EXPORT_FILE="$tf/kvmchurn.prom" JOURNAL_STREAM=8:1234
want_rc 0
want_grep err '^<4>kvmchurn export: '
finish "the unit's command, the module not loaded: kvmchurn_up 0 replaces the old numbers, one line (a warning in the journal), exit 0"

# a raw file this client cannot read: kvmchurn_up 0 too, one line, and the unit fails
"$client" -d "$capture" export -o "$tf/kvmchurn.prom"
export_unit KVMCHURN_EXPORT_DIR="$top/tests/fixtures/hand/v2" KVMCHURN_EXPORT_FILE="$tf/kvmchurn.prom" JOURNAL_STREAM=8:1234
want_rc 2
want_eq "lines said" 1 "$(lines)"
want_grep err '^<3>kvmchurn export: .*version 2 of the raw format.*now says kvmchurn_up 0$'
want_eq "the textfile" "$up0" "$(cat "$tf/kvmchurn.prom")"
finish "the unit's command, a raw file it cannot read: kvmchurn_up 0, one line (an error), exit 2"

# no folder for the textfile (node_exporter not installed): one line, the unit fails
export_unit KVMCHURN_EXPORT_DIR="$tmp/no-module" KVMCHURN_EXPORT_FILE="$tmp/no-such-folder/kvmchurn.prom"
want_rc 2
want_eq "lines said" 1 "$(lines)"
want_grep err "could not be written either: "
finish "the unit's command, the textfile's folder missing: one line, exit 2"

# The package build's chroot (tests/dkms/chroot.sh) has every Build-Depends installed:
# dpkg-buildpackage refuses to start without them.
bdeps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$top/debian/control" | sed '$d' | sed 's/^Build-Depends://' |
	tr ',' '\n' | sed 's/[[(<].*//; s/^ *//; s/ *$//' | sed '/^$/d' |
	sed 's/^debhelper-compat$/debhelper/; s/^dh-sequence-dkms$/dh-dkms/' | words)
have=$(sed -n 's/^KC_DKMS_\(BASE\|DEB\)_PKGS="\(.*\)"$/\2/p' "$top/tests/dkms/chroot.sh" | words)
result "tests/dkms/chroot.sh installs every Build-Depends of debian/control" "" \
	"$(comm -23 <(tr ' ' '\n' <<<"$bdeps") <(tr ' ' '\n' <<<"$have") | words)"

done_suite packaging
