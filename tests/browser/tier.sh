#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tier.sh [--client PATH] [--docs]: the browser tier (make check-browser). Every picture of
# `kvmchurn plot` as a person sees it, in Debian's Chromium, headless:
#   - the timeline of each capture of tests/fixtures and of each hand-made vms file with
#     finished VMs, the histograms of a capture of each architecture, and --diff of two
#     kernels' captures and of the hand-made pair
#   - each: xmllint accepts the SVG; its screenshot is the SVG's size, the paper to every
#     corner, and not blank (check.py png), as is what librsvg (the image viewers'
#     library) draws of it; Chromium opens it, in an XHTML page that parses it as XML,
#     without an error; and what Chromium laid out there, measured by measure.js, is the
#     numbers' (check.py dom): for a timeline one row a VM, each window's parts as wide
#     as its time within a pixel, a legend entry and a label for each part present,
#     against `vms --json`; a panel a metric holding its count against `summary --json`;
#     a row a metric with its bars against `diff --json`
# --docs then writes Documentation/images/timeline.png and diff.png from this run's
# screenshots (a fixture's 16 last VMs; x86_64 6.1 against 6.12). Chromium, xmllint,
# rsvg-convert and python3 are needed: tests/install-deps.sh installs them, and without
# one the tier fails, never skips. One TAP line a test, the verdict, "N passed, N
# failed"; the log in $KVMCHURN_CACHE/logs/browser.log. --client: default
# userspace/kvmchurn, which make check-browser builds.
set -uo pipefail
export LC_ALL=C TZ=UTC
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/core.sh
. "$here/../lib/core.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/tap.sh
. "$KC_LIB/tap.sh"
client=$KC_TOP/userspace/kvmchurn docs=
while (($#)); do
	case $1 in
	--client) (($# >= 2)) || { echo "tier.sh: --client needs a path" >&2; exit 2; }; client=$2; shift ;;
	--docs) docs=1 ;;
	--help) echo "usage: tests/browser/tier.sh [--client PATH] [--docs]"; exit 0 ;;
	*) echo "tier.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
	esac
	shift
done
fixtures=$KC_TOP/tests/fixtures
# python3 itself, not a wrapper of it (a pyenv shim costs more than the program)
python=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || python=
chromium=$(command -v chromium || command -v chromium-browser)

# shellcheck source-path=SCRIPTDIR source=pictures.sh
. "$here/pictures.sh"

tier() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	[[ -n $chromium ]] || bail_out "chromium installed" "tests/install-deps.sh installs Debian's chromium (.ci/run runs it)"
	command -v xmllint >/dev/null || bail_out "xmllint installed" "tests/install-deps.sh installs libxml2-utils"
	command -v rsvg-convert >/dev/null || bail_out "rsvg-convert installed" "tests/install-deps.sh installs librsvg2-bin"
	[[ -n $python ]] || bail_out "python3 installed"
	[[ -x $client ]] || bail_out "the client, $client" "make client (make check-browser builds it)"
	diag "$("$chromium" --version 2>/dev/null | head -n1); $(xmllint --version 2>&1 | head -n1); $(rsvg-convert --version)"
	test_timelines
	test_histograms
	test_diffs
	[[ -z $docs ]] || write_docs
	tap_done
}

main() {
	kc_tier_logged browser tier
}

main "$@"
