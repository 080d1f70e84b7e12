# shellcheck shell=bash disable=SC2034 # the variables set here are read by the sourcing scripts
# Debian's archive, read from the host's own apt configuration (sourced by core.sh): a
# private apt state under the cache, downloads that are whole or absent, and debootstrap.
# Nothing here installs anything on the host: kernels are unpacked with dpkg -x.

KC_DEBIAN_SOURCES=/etc/apt/sources.list.d/debian.sources
KC_APT=$KVMCHURN_CACHE/apt
KC_CHROOT_DIR=$KVMCHURN_CACHE/chroot/trixie
# Where fetch.sh puts sid's sparse inside the chroot (see KC_CHECK).
KC_SID_SPARSE=/usr/local/bin/sparse-sid
# sid's sparse for a kernel built on the host (x86_64-debug-7): a wrapper that fetch.sh
# writes, which runs it with sid's own C library (it wants glibc 2.38, bookworm has 2.36).
KC_SID_SPARSE_HOST=$KVMCHURN_CACHE/sparse-sid/sparse-host

# kc_read_sources: the archive and security URIs and the keyring, from the host's own
# deb822 file, so that no mirror name is ever written into the project.
kc_read_sources() {
	[[ -r $KC_DEBIAN_SOURCES ]] || kc_die "$KC_DEBIAN_SOURCES not readable"
	local kind uri key
	KC_MIRROR='' KC_SECURITY='' KC_KEYRING=''
	while read -r kind uri key; do
		[[ $kind == security ]] && KC_SECURITY=$uri || KC_MIRROR=$uri
		KC_KEYRING=${KC_KEYRING:-$key}
	done < <(awk 'BEGIN { RS = ""; FS = "\n" }
		{
			uris = suites = key = types = ""; enabled = "yes"
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^#/ || $i !~ /:/) continue
				k = tolower(substr($i, 1, index($i, ":") - 1))
				v = substr($i, index($i, ":") + 1); gsub(/^[ \t]+|[ \t]+$/, "", v)
				if (k == "uris") uris = v; else if (k == "suites") suites = v
				else if (k == "signed-by") key = v; else if (k == "types") types = v
				else if (k == "enabled") enabled = tolower(v)
			}
			if (types !~ /(^| )deb( |$)/ || enabled == "no" || uris == "") next
			split(uris, u, /[ \t]+/)
			print (suites ~ /-security/ ? "security" : "main"), u[1], key
		}' "$KC_DEBIAN_SOURCES")
	[[ -n $KC_MIRROR && -n $KC_SECURITY ]] ||
		kc_die "$KC_DEBIAN_SOURCES lacks a debian or a debian-security stanza"
	[[ -f $KC_KEYRING ]] || kc_die "Signed-By '$KC_KEYRING' is not a keyring file"
}

# kc_apt_setup: a private apt configuration under the cache (sources, lists, archives,
# status): apt-get update/download never touch the host's apt state.
kc_apt_setup() {
	kc_read_sources
	mkdir -p "$KC_APT/lists/partial" "$KC_APT/cache/archives/partial" "$KC_APT/preferences.d"
	: >>"$KC_APT/status"
	local s k=$KC_KEYRING
	{
		for s in bullseye bookworm bookworm-backports trixie-backports; do
			# arm64 kernels come from bullseye(-security), bookworm(-security) and
			# trixie-backports, busybox-static:arm64 from bookworm
			printf 'deb [arch=%s signed-by=%s] %s %s main\n' \
				"$([[ $s != bookworm-backports ]] && echo amd64,arm64 || echo amd64)" \
				"$k" "$KC_MIRROR" "$s"
		done
		printf 'deb [arch=amd64,arm64 signed-by=%s] %s bullseye-security main\n' "$k" "$KC_SECURITY"
		printf 'deb [arch=amd64,arm64 signed-by=%s] %s bookworm-security main\n' "$k" "$KC_SECURITY"
		# only sparse is taken from sid (see KC_CHECK); amd64 alone keeps the update small
		printf 'deb [arch=amd64 signed-by=%s] %s sid main\n' "$k" "$KC_MIRROR"
	} >"$KC_APT/sources.list"
	cat >"$KC_APT/apt.conf" <<EOF
Dir::Etc::sourcelist "$KC_APT/sources.list";
Dir::Etc::sourceparts "/dev/null";
Dir::Etc::preferences "$KC_APT/preferences";
Dir::Etc::preferencesparts "$KC_APT/preferences.d";
Dir::State::Lists "$KC_APT/lists";
Dir::Cache "$KC_APT/cache";
Dir::State::status "$KC_APT/status";
APT::Architectures { "amd64"; "arm64"; };
Acquire::Languages "none";
Acquire::IndexTargets::deb::DEP-11::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled "false";
// the cache may sit under /root, which the _apt user cannot enter
APT::Sandbox::User "root";
EOF
	export APT_CONFIG=$KC_APT/apt.conf
}

# kc_apt_update: refresh the indexes once per run. KC_ONLINE=1 after a clean update,
# 0 when it failed (cached kernels are then used as they are).
kc_apt_update() {
	if [[ ${KC_APT_UPDATED:-} == 1 ]]; then
		KC_ONLINE=1
		return
	fi
	local t=$SECONDS
	rm -f "$KC_APT/targets"
	if apt-get -q update >"$KC_APT/update.log" 2>&1 &&
		! grep -qE '^(W|E): (Failed|Some index files failed)' "$KC_APT/update.log"; then
		KC_ONLINE=1
		export KC_APT_UPDATED=1 # child scripts of this run skip it
		kc_log "package indexes refreshed ($((SECONDS - t)) s)"
	else
		KC_ONLINE=0
		kc_log "apt-get update failed (see $KC_APT/update.log): offline, only cached kernels are used"
	fi
}

# kc_index SUITES ARCHS: "package<TAB>arch<TAB>version<TAB>depends" for the kernel
# packages, busybox-static, sparse and libc6 (sid's, for its sparse) of those suites,
# read from the private lists.
kc_index() {
	local s a f files=()
	if [[ ! -s $KC_APT/targets ]]; then
		# one indextargets call a run: each takes seconds
		# shellcheck disable=SC2016 # $(...) is apt's template, not a shell expansion
		apt-get indextargets --format '$(CODENAME) $(ARCHITECTURE) $(FILENAME)' \
			"Created-By: Packages" >"$KC_APT/targets"
	fi
	for s in $1; do
		for a in $2; do
			while read -r f; do
				[[ -e $f ]] && files+=("$f")
			done < <(awk -v s="$s" -v a="$a" '$1 == s && $2 == a { print $3 }' "$KC_APT/targets")
		done
	done
	((${#files[@]})) || return 0
	/usr/lib/apt/apt-helper cat-file "${files[@]}" | awk '
		function out() { if (p ~ /^(linux-(headers|image|binary-unsigned|modules|kbuild|source)-|busybox-static$|sparse$|libc6$)/) print p "\t" a "\t" v "\t" d; p = "" }
		/^Package: / { out(); p = $2; a = v = d = "" }
		/^Architecture: / { a = $2 }
		/^Version: / { v = $2 }
		/^Depends: / { d = substr($0, 10) }
		END { out() }'
}

# kc_deb_file PKG ARCH VERSION: the name apt-get download gives the file.
kc_deb_file() { printf '%s_%s_%s.deb' "$1" "${3//:/%3a}" "$2"; }

# kc_download DIR PKG:ARCH=VERSION...: download what is not there yet. apt-get writes
# into a folder of its own, moved in whole once it verified every file: a run killed
# mid-download (CI's time limit) must not leave a truncated .deb that later runs trust.
kc_download() {
	local dir=$1 spec pkg arch ver want=() part=$1/.partial
	shift
	mkdir -p "$dir"
	for spec in "$@"; do
		pkg=${spec%%:*} arch=${spec#*:} arch=${arch%%=*} ver=${spec#*=}
		[[ -s $dir/$(kc_deb_file "$pkg" "$arch" "$ver") ]] ||
			want+=("$([[ $arch == all ]] && echo "$pkg=$ver" || echo "$spec")")
	done
	((${#want[@]})) || return 0
	kc_log "downloading ${want[*]}"
	rm -rf "$part" && mkdir "$part" || return 1
	(cd "$part" && apt-get -q download "${want[@]}" >/dev/null) || { rm -rf "$part"; return 1; }
	mv "$part"/*.deb "$dir/" && rmdir "$part"
}

# kc_debootstrap DIR RELEASE [DEBOOTSTRAP-ARGS...]: a minbase RELEASE made afresh in DIR
# (whatever was there, a run killed half-way, removed first), from the host's mirror and
# keyring; its log is DIR.log. Returns 1 when debootstrap fails.
kc_debootstrap() {
	local d=$1 rel=$2
	shift 2
	if [[ -e $d ]]; then
		# never rm -rf through a leftover mount (a debootstrap killed half-way)
		! grep -q " $d/" /proc/mounts || kc_die "something is mounted under $d: unmount it first"
		rm -rf "$d"
	fi
	mkdir -p "$d"
	debootstrap --variant=minbase "$@" --keyring="$KC_KEYRING" "$rel" "$d" "$KC_MIRROR" >"$d.log" 2>&1 ||
		{ tail -n 20 "$d.log" >&2; return 1; }
}
