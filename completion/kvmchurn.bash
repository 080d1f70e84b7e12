# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2207 # COMPREPLY=($(compgen ...)) is the completion idiom
# bash completion for kvmchurn(1). Installed as
# /usr/share/bash-completion/completions/kvmchurn; tests/unit/packaging.sh checks
# that its commands and options are the client's own. The metrics come from
# the client itself, so that they are those of the installed version.

# _kvmchurn_metrics CLIENT: the metrics of CLIENT's table (`show --list`).
_kvmchurn_metrics() {
	"$1" show --list 2>/dev/null | cut -f1
}

_kvmchurn_commands="show summary watch check probes filter reset enable disable
	snapshot diff merge export dump vms plot load downtime help"

# _kvmchurn_options COMMAND: the options COMMAND takes.
_kvmchurn_options() {
	case $1 in
	show) echo "--fine --unit --bpftrace --json --list -h --help" ;;
	summary | check | probes | filter | diff | dump) echo "--json -h --help" ;;
	watch) echo "-i -c --json -h --help" ;;
	reset | enable | disable) echo "-h --help" ;;
	snapshot | merge) echo "-o -h --help" ;;
	vms) echo "--slowest -n --stages --live --json --trace-event -h --help" ;;
	plot) echo "-o --slowest -n --diff --hist -h --help" ;;
	export) echo "--prometheus -o -h --help" ;;
	downtime)
		echo "--json --prometheus -o --hist --follow --qmp --enable --disable -h --help"
		;;
	load)
		echo "-n -t -j --vcpus --mem --backing --mem-file --irqfds --run --comm --dev --end" \
			"--term-default --kill-after --ignore-term --timeout --together" \
			"--json -h --help"
		;;
	esac
}

_kvmchurn() {
	local cur prev cmd="" i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}

	# the command is the first word that is neither an option nor -d's folder
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-d) ((i++)) ;;
		-*) ;;
		*)
			cmd=${COMP_WORDS[i]}
			break
			;;
		esac
	done

	case $prev in
	-d)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	-o | --dev | --qmp | --mem-file)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--unit)
		COMPREPLY=($(compgen -W "us ns ms" -- "$cur"))
		return
		;;
	--end)
		COMPREPLY=($(compgen -W "kill term exit close" -- "$cur"))
		return
		;;
	--backing)
		COMPREPLY=($(compgen -W "anon thp hugetlb memfd file" -- "$cur"))
		return
		;;
	-n | -t | -j | -i | -c | --vcpus | --mem | --irqfds | --comm | --timeout | --kill-after)
		return # a number or a name: nothing to offer
		;;
	esac

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-d -h --help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_kvmchurn_commands" -- "$cur"))
		fi
		return
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_kvmchurn_options "$cmd")" -- "$cur"))
		return
	fi
	case $cmd in
	show) COMPREPLY=($(compgen -W "$(_kvmchurn_metrics "${COMP_WORDS[0]}")" -- "$cur")) ;;
	diff | merge | downtime | plot) COMPREPLY=($(compgen -f -- "$cur")) ;;
	help) ((i == COMP_CWORD - 1)) && COMPREPLY=($(compgen -W "$_kvmchurn_commands" -- "$cur")) ;;
	esac
}

complete -F _kvmchurn kvmchurn
