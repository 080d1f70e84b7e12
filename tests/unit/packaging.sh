#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What the packages and the install carry besides the code, checked against the code:
# the one version (dkms.conf) in debian/changelog and the client; the bash completion's
# commands, options and metrics against the client's own help; the modprobe.d example's
# parameters against the module's. The tests/dkms tier builds and installs the packages.
#
#   KVMCHURN_CLIENT   the client (default: userspace/kvmchurn of this tree)
#
# One TAP line a test (tests/lib/tap.sh), then "packaging: N passed, N failed".

set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
suite_setup || exit 2
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
	skip "every product of build.mk's KC_PRODUCTS is in .gitignore" "a tree without .gitignore (not a git checkout)"
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
result "completes a metric of show" "exit_files exit_mmap exit_to_reap" "$(complete_line "$client" show exit_)"
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

done_suite packaging
