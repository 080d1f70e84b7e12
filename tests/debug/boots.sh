# shellcheck shell=bash disable=SC2154 # engine: tier.sh's, which sources this
# SPDX-License-Identifier: GPL-2.0
# boots.sh: the debug tier's boots (sourced by tier.sh). The scenarios run in one boot
# each of the "# boot: ARGS" lines they have (68-lockdown: lockdown=confidentiality, and
# with FULL=1 lockdown=integrity), and those
# without in one plain boot; a boot with ARGS also gets kvmchurn.ko signed twice, with
# the debug kernel's own key and with one it does not trust.

# shellcheck source=../lib/vmm.sh
. "$KC_LIB/vmm.sh"

# boots: one line a boot that the scenarios asked for (SCENARIOS, else the debug kernel's
# depth) need: "-" for those without a "# boot:" line, else the line's ARGS (one a
# "# boot:" line; without SCENARIOS, those of make check's depth, matrix.sh's
# KC_CHECK_ARG_BOOTS); the first boot when none matched.
boots() {
	local f n g b sel list='' globs=()
	# read, not word-split: a glob such as "*" must not expand against the current folder
	read -r -a globs <<<"${SCENARIOS:-$(kc_depth "$KC_DEBUG_ID")}"
	for f in "$KC_TOP"/tests/scenarios/*.sh "$here"/scenarios/*.sh; do
		n=${f##*/} sel=${globs[0]:+0}
		for g in "${globs[@]}"; do
			# shellcheck disable=SC2053 # $g is a glob on purpose
			if [[ $n == $g ]]; then sel=1; break; fi
		done
		[[ ${sel:-1} == 1 ]] || continue
		b=$(sed -n 's/^# boot: //p' "$f")
		list+="${b:--}"$'\n'
	done
	sort -u <<<"${list:--}" | sed '/^$/d' | while IFS= read -r b; do
		[[ $b == - || -n ${SCENARIOS:-} ]] || kc_arg_boot_depth "$KC_DEBUG_ID" "$b" || continue
		echo "$b"
	done
}

# signed_guest DIR: what a boot of its own adds to the guest's /kvmchurn (boot.sh's
# --guest-dir): signed/kvmchurn.ko, signed with the key the kernel's build made
# and trusts (make module SIGN_KEY= SIGN_CERT=), and foreign/kvmchurn.ko, signed the
# same way with a key made here, that the kernel does not know.
signed_guest() {
	local g=$1 log=$KVMCHURN_CACHE/logs/$KC_DEBUG_ID-build-signed.log
	rm -rf "$g"
	mkdir -p "$g/signed" "$g/foreign"
	[[ -n ${KC_SIGN_KEY:-} && -r $KC_SIGN_KEY && -r $KC_SIGN_CERT ]] ||
		{ kc_log "the debug kernel has no signing key (kernels/$KC_DEBUG_ID/env: KC_SIGN_KEY)"; return 1; }
	if ! kc_build "$KC_DEBUG_ID" vm-signed "$log" module SIGN_KEY="$KC_SIGN_KEY" SIGN_CERT="$KC_SIGN_CERT"; then
		tail -n 20 "$log" >&2
		return 1
	fi
	cp "$KC_BUILD_DIR/kvmchurn.ko" "$g/signed/"
	if ! openssl req -new -x509 -nodes -days 2 -subj "/CN=kvmchurn tests: a key no kernel trusts" \
		-newkey rsa:2048 -keyout "$g/foreign.pem" -outform DER -out "$g/foreign.der" >"$log.foreign" 2>&1 ||
		! kc_build "$KC_DEBUG_ID" vm-signed "$log.foreign" module SIGN_KEY="$g/foreign.pem" SIGN_CERT="$g/foreign.der"; then
		tail -n 20 "$log.foreign" >&2
		return 1
	fi
	cp "$KC_BUILD_DIR/kvmchurn.ko" "$g/foreign/"
	rm -f "$g/foreign.pem" "$g/foreign.der"
}

# boot ARGS|-: the vm tier on the debug kernel, one boot; "-": the scenarios without a
# "# boot:" line, with the out/ files the rest of the project reads (compatibility.sh).
# A lockdown=confidentiality boot has the seed's root (bpftrace) as its disk: 68-lockdown
# shows what bpftrace can do there.
boot() {
	local g=$KVMCHURN_CACHE/build/guest-signed/$KC_DEBUG_ID disk=()
	if [[ $1 == - ]]; then
		"${engine[@]}" "$KC_DEBUG_ID"
		return
	fi
	if [[ " $1 " == *" lockdown=confidentiality "* ]]; then
		if ! kc_seed_root amd64; then
			echo "FAIL $KC_DEBUG_ID $KC_KREL (booted with $1): the seed's root could not be made ($(kc_seed_root_of amd64).log)"
			return
		fi
		disk=(--disk "$(kc_seed_root_of amd64)")
	fi
	if signed_guest "$g"; then
		"${engine[@]}" --boot-args "$1" --guest-dir "$g" "${disk[@]}" \
			--out "$KVMCHURN_CACHE/out/boot/${1//[^A-Za-z0-9._=-]/_}" "$KC_DEBUG_ID"
	else
		echo "FAIL $KC_DEBUG_ID $KC_KREL (booted with $1): kvmchurn.ko could not be signed"
	fi
}
