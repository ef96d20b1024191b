# SPDX-License-Identifier: BSD-3-Clause
# bash completion for kutrace(1), installed as
# $(datarootdir)/bash-completion/completions/kutrace.
#
# The commands come from `kutrace --list-commands` and each command's
# options from its program's --help (`kutrace help COMMAND`), both read
# once per shell on first use: nothing here needs changing when a program
# gains an option or the front door a command.  Then file names, of the
# kinds each program reads.

_kutrace_commands=
declare -A _kutrace_opts=()

# The options a command's --help names (-o, --no-html, --backend= ...).
_kutrace_options() {
	local door=$1 cmd=$2
	if [[ -z ${_kutrace_opts[$cmd]+set} ]]; then
		_kutrace_opts[$cmd]=$("$door" help "$cmd" 2>/dev/null |
			grep -o -- '\(^\|[][ (|,]\)--\?[a-zA-Z][-a-zA-Z]*=\?' |
			sed 's/^[][ (|,]//' | grep -vx -- '-h\|--help' | sort -u |
			awk '{ o[NR] = $0; eq[$0] = 1 } END { for (i = 1; i <= NR; i++) if (!eq[o[i] "="]) print o[i] }' |
			tr '\n' ' ')
	fi
	printf '%s\n' "${_kutrace_opts[$cmd]}"
}

# File names ending in one of the extensions given (any file if none),
# and directories to go into (a table store is one).
_kutrace_files() {
	local cur=$1 e IFS=$'\n'
	shift
	COMPREPLY=($(compgen -d -- "$cur"))
	if (($# == 0)); then
		COMPREPLY+=($(compgen -f -- "$cur"))
	fi
	for e; do
		COMPREPLY+=($(compgen -f -X "!*.$e" -- "$cur"))
	done
	# Sorted and each once: a directory is also a file to compgen -f.
	COMPREPLY=($(printf '%s\n' "${COMPREPLY[@]}" | sort -u))
	compopt -o filenames 2>/dev/null
}

_kutrace() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local door=${COMP_WORDS[0]} cmd=${COMP_WORDS[1]} i
	COMPREPLY=()
	[[ -n $_kutrace_commands ]] || _kutrace_commands=$("$door" --list-commands 2>/dev/null)

	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "$_kutrace_commands help --help --version" -- "$cur"))
		return
	fi
	if [[ $cmd == help ]]; then
		((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$_kutrace_commands" -- "$cur"))
		return
	fi
	# record ... -- CMD ARGS: a command to run, then its arguments.
	if [[ $cmd == record ]]; then
		for ((i = 2; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == -- ]] || continue
			if ((i + 1 == COMP_CWORD)); then
				COMPREPLY=($(compgen -c -- "$cur" | sort -u))
			else
				_kutrace_files "$cur"
			fi
			return
		done
	fi
	# bash splits --backend=bpf at the '=' (COMP_WORDBREAKS).
	if [[ $prev == = || $cur == = ]]; then
		local opt=${COMP_WORDS[COMP_CWORD - 2]} val=$cur
		[[ $cur == = ]] && opt=$prev val=
		case $opt in
		--backend) COMPREPLY=($(compgen -W "module bpf" -- "$val")) ;;
		esac
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_kutrace_options "$door" "$cmd")" -- "$cur"))
		[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	case $prev in
	-o | --rows-fd | --html-max-spans | --pyramid-min | --memory | --trace-id | --machine | -c | --report | --pid | --from | --to | --mark | --rpc)
		[[ $prev == -o ]] && _kutrace_files "$cur"
		# The report names, as kutrace_sql --help lists them.
		[[ $prev == --report ]] && COMPREPLY=($(compgen -W "$("$door" help "$cmd" 2>/dev/null |
			sed -n 's/.*--report NAME.*: //p' | tr -d ,)" -- "$cur"))
		return
		;;
	esac
	case $cmd in
	postproc | check | dump) _kutrace_files "$cur" trace ;;
	export) _kutrace_files "$cur" json ;;
	sql)
		_kutrace_files "$cur" trace json
		# build, unless a directory of that name is offered already
		if ((COMP_CWORD == 2)) && [[ build == "$cur"* && ! -d build ]]; then
			COMPREPLY+=(build)
		fi
		;;
	why | view | align) _kutrace_files "$cur" trace json ;;
	control)
		COMPREPLY=($(compgen -W "go goipc gowrap goipcwrap stop init on off flush reset stat status dump test wait quit" -- "$cur"))
		;;
	stop) _kutrace_files "$cur" trace ;;
	*) _kutrace_files "$cur" ;;
	esac
}

complete -F _kutrace kutrace
