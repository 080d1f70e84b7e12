#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# lib/shellcheck.sh [--list]: shellcheck over every shell script of the tree, at its default
# severity (style: every finding it has), zero findings wanted. A script is a file named
# *.sh or *.bash, or one whose first line starts a shell. --list prints them instead.
#
# One check is left out, SC2317 ("command appears to be unreachable"): the harness calls
# functions by name (wait_for COND, check CMD, a trap), which shellcheck cannot follow,
# and its 46 findings were all such functions. Sourced files are followed (-x), from the
# folder of the script that sources them (-P SCRIPTDIR, as their source= directives say).
# Then the harness's own rule: no shell function over 80 lines (from "NAME() {" at the
# start of a line to the next "}" there), so that a unit reads on one screen; an awk
# program that outgrows a function goes into a .awk file of its own. And no function
# defined twice in what one script runs: the script and the files it sources (its
# "shellcheck source=" directives, followed), where a later definition silently
# replaces the one every other caller meant.
# Exit status: 0 clean, 1 findings (printed), 2 shellcheck missing.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"

scripts() {
	local f
	if [[ -d .git ]] && git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard
	else
		find . -name .git -prune -o -type f -print | sed 's|^\./||'
	fi | sort | while IFS= read -r f; do
		[[ -f $f ]] || continue
		case $f in
		*.sh | *.bash) echo "$f" ;;
		*) if head -n 1 "$f" 2>/dev/null | grep -qE '^#!(/bin/|/usr/bin/env )(ba|da)?sh\b'; then echo "$f"; fi ;;
		esac
	done
}

case ${1:-} in
--list)
	scripts
	exit 0
	;;
"") ;;
*) echo "usage: tests/lib/shellcheck.sh [--list]" >&2 && exit 2 ;;
esac
command -v shellcheck >/dev/null || {
	echo "shellcheck.sh: shellcheck is not installed (Debian: apt install shellcheck; tests/install-deps.sh does)" >&2
	exit 2
}
mapfile -t files < <(scripts)
if shellcheck -x -P SCRIPTDIR -e SC2317 "${files[@]}"; then
	echo "shellcheck: ${#files[@]} scripts, no finding"
else
	echo "shellcheck: findings above, in ${#files[@]} scripts" >&2
	exit 1
fi
# a function's definition, "NAME() {" at the start of a line, for both rules below (its
# name: the first field up to the parenthesis)
def='^[A-Za-z_][A-Za-z0-9_]*[(][)] *[{]'
long=$(awk -v def="$def" 'FNR == 1 { name = "" }
	$0 ~ def { name = $1; sub(/\(.*/, "", name); start = FNR; next }
	/^}/ && name != "" { if (FNR - start + 1 > 80) printf "%s:%d: %s() is %d lines\n", FILENAME, start, name, FNR - start + 1; name = "" }' "${files[@]}")
if [[ -n $long ]]; then
	printf '%s\n' "$long" >&2
	echo "shellcheck: functions over 80 lines, above: split them" >&2
	exit 1
fi
echo "shellcheck: no function over 80 lines"

# sourced FILE: FILE and, depth first, each file its "shellcheck source=" directives
# name (from FILE's folder, else from the top), each once
sourced() {
	local f=$1 dir src
	[[ " $seen " == *" $f "* ]] && return
	seen+=" $f"
	echo "$f"
	dir=$(dirname "$f")
	while read -r src; do
		if [[ -f $dir/$src ]]; then
			sourced "$(realpath --relative-to=. "$dir/$src")"
		elif [[ -f $src ]]; then
			sourced "$src"
		fi
	done < <(sed -n 's/^[[:space:]]*# shellcheck .*source=\([^ ]*\).*/\1/p' "$f")
}
twice=$(for f in "${files[@]}"; do
	seen=''
	mapfile -t group < <(sourced "$f")
	awk -v top="$f" -v def="$def" '$0 ~ def { name = $1; sub(/\(.*/, "", name)
			if (name in at) printf "%s: %s() at %s and %s:%d\n", top, name, at[name], FILENAME, FNR
			else at[name] = FILENAME ":" FNR }' "${group[@]}"
done | sort -u)
if [[ -n $twice ]]; then
	printf '%s\n' "$twice" >&2
	echo "shellcheck: functions defined twice for one script, above: rename one" >&2
	exit 1
fi
echo "shellcheck: no function defined twice in a script and what it sources"
