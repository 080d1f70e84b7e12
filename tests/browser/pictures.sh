# shellcheck shell=bash disable=SC2154 # tmp, python, chromium, client, fixtures: tier.sh's
# SPDX-License-Identifier: GPL-2.0
# The browser tier's steps (sourced by tier.sh, whose variables they use): Chromium run
# headless, every check of one picture, and the pictures of the fixtures.

# browse ARG...: headless Chromium on its own profile, quiet but for what it is asked.
browse() {
	"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$tmp/profile" "$@" 2>>"$tmp/chromium.err"
}

# picture NAME SVG [CHECK.PY DOM OPTION...]: every check of one picture. librsvg draws it
# as an image viewer does. Chromium reads it twice: the SVG file itself, for the
# screenshot; and an XHTML page around it, parsed as
# XML as the SVG file is (a malformed one is a parsererror there, and no measurement),
# in which measure.js measures what was laid out.
picture() {
	local name=$1 svg=$2 base=${2%.svg} width height
	shift 2
	check "$name: xmllint accepts the SVG" xmllint --noout "$svg"
	read -r width height < <(sed -n '2s/.* width="\([0-9.]*\)" height="\([0-9.]*\)".*/\1 \2/p' "$svg")
	browse --screenshot="$base.png" --window-size="${width%.*},${height%.*}" "file://$svg" >/dev/null
	check "$name: the screenshot is its size, not blank" "$python" "$here/check.py" png "$base.png" "$svg"
	# an image viewer's reading: librsvg, which GNOME's viewers and ImageMagick use
	rsvg-convert -o "$base.rsvg.png" "$svg" 2>"$base.rsvg.err" || diag "$(cat "$base.rsvg.err")"
	check "$name: librsvg draws it too, its size, not blank" "$python" "$here/check.py" png "$base.rsvg.png" "$svg"
	{
		printf '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">\n'
		printf '<head><style>body { margin: 0 }</style></head><body>\n'
		sed 1d "$svg"
		printf '<pre id="kc-result"></pre>\n<script><![CDATA[\n'
		cat "$here/measure.js"
		printf ']]></script></body></html>\n'
	} >"$base.xhtml"
	browse --dump-dom "file://$base.xhtml" >"$base.dom"
	if grep -q 'id="kc-result">{' "$base.dom" && ! grep -qi 'parsererror' "$base.dom"; then
		ok "$name: Chromium opens it without an error"
	else
		not_ok "$name: Chromium did not open it"
		diag "$(head -c 600 "$base.dom")"
	fi
	check "$name: what Chromium laid out is the numbers'" "$python" "$here/check.py" dom "$base.dom" "$svg" "$@"
}

# has_vms FOLDER: its vms file has finished VMs of the last list.
has_vms() {
	[[ -f $1/vms ]] && grep -q "^vm	last	" "$1/vms"
}

# test_timelines: the timeline of every folder of tests/fixtures with finished VMs.
test_timelines() {
	local dir id n=0
	for dir in "$fixtures"/*/ "$fixtures"/hand/*/; do
		dir=${dir%/}
		has_vms "$dir" || continue
		id=${dir#"$fixtures"/}
		id=${id//\//-}
		if ! "$client" -d "$dir" vms --json >"$tmp/$id.vms.json" ||
			! "$client" -d "$dir" plot -o "$tmp/$id.svg"; then
			not_ok "$id: kvmchurn plot"
			continue
		fi
		picture "$id timeline" "$tmp/$id.svg" --vms "$tmp/$id.vms.json"
		n=$((n + 1))
	done
	((n >= 6)) || not_ok "timelines of 6 folders or more: $n"
}

# test_histograms: the histograms of a capture of each architecture (every capture's
# are the same code on other numbers, byte for byte in the unit tier; each picture here
# costs some 5 s).
test_histograms() {
	local dir id
	for dir in "$fixtures"/*/; do
		dir=${dir%/}
		[[ $dir == */x86_64-6.12-kill || $dir == */arm64-6.1-kill ]] || continue
		id=${dir##*/}
		if ! "$client" -d "$dir" summary --json >"$tmp/$id.summary.json" ||
			! "$client" -d "$dir" plot --hist -o "$tmp/$id-hist.svg"; then
			not_ok "$id: kvmchurn plot --hist"
			continue
		fi
		picture "$id histograms" "$tmp/$id-hist.svg" --summary "$tmp/$id.summary.json"
	done
}

# test_diffs: two kernels' captures, and the hand-made pair, named from tests/fixtures
# (as the pictures of Documentation/ show them).
test_diffs() {
	set -- x86_64-6.1-kill x86_64-6.12-kill x86_64 hand/diff-a hand/diff-b hand
	while (($#)); do
		if (cd "$fixtures" && "$client" diff --json "$1" "$2" >"$tmp/$3.diff.json" &&
			"$client" plot --diff -o "$tmp/$3-diff.svg" "$1" "$2"); then
			picture "$3 --diff" "$tmp/$3-diff.svg" --diff "$tmp/$3.diff.json"
		else
			not_ok "$3: kvmchurn plot --diff"
		fi
		shift 3
	done
}

# write_docs: Documentation/images from this run's screenshots.
write_docs() {
	(cd "$fixtures" && "$client" -d x86_64-6.12-kill plot -n 16 -o "$tmp/docs-timeline.svg")
	picture "Documentation/images/timeline.png" "$tmp/docs-timeline.svg"
	mkdir -p "$KC_TOP/Documentation/images"
	cp "$tmp/docs-timeline.png" "$KC_TOP/Documentation/images/timeline.png"
	cp "$tmp/x86_64-diff.png" "$KC_TOP/Documentation/images/diff.png"
	diag "wrote Documentation/images/timeline.png and diff.png"
}
