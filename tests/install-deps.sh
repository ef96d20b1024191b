#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages listed in tests/deps/*.apt that are missing,
# then runs every tests/deps/*.sh hook (npm installs and the like).
# Safe to run repeatedly: it does nothing when all is present.
#   tests/install-deps.sh              every list and every hook
#                                      (make test, CI)
#   tests/install-deps.sh LIST...      only tests/deps/LIST.apt, no hooks
#                                      (make demo: build vm)
#   tests/install-deps.sh --probe [CC [LIST...]]
#                                      prints the packages of build.apt
#                                      (or of the LISTs named) whose
#                                      "needs:" (headers, programs) are
#                                      missing (the Makefile's probe:
#                                      build, and core for the test
#                                      programs of make test-progs)
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = --probe ]; then
	cc=${2:-cc} miss="" probe=""
	[ $# -gt 2 ] && shift 2 || set -- build
	for l in "$@"; do probe="$probe tests/deps/$l.apt"; done
	while read -r pkg needs; do
		for n in $needs; do
			case $n in
			"<"*) printf '#include %s\n' "$n" | $cc -E -x c - >/dev/null 2>&1 ;;
			*) command -v "$n" >/dev/null 2>&1 ;;
			esac || { miss="$miss $pkg"; break; }
		done
	done <<-LIST
	$(cat $probe | sed -n "s/^\([a-z0-9][^ #]*\).*# *needs: *\(.*\)/\1 \2/p")
	LIST
	echo $miss
	exit 0
fi
lists=$(ls tests/deps/*.apt) hooks=tests/deps/*.sh
if [ $# -gt 0 ]; then
	lists="" hooks=""
	for l in "$@"; do lists="$lists tests/deps/$l.apt"; done
fi
missing=""
for p in $(cat $lists | sed 's/#.*//' | tr -s ' \t' '\n' | sort -u); do
	# Node.js may come from outside Debian (this machine kind ships node 20
	# and npm 11, which conflict with Debian's npm): a working command is
	# enough.
	case $p in
	nodejs) command -v node >/dev/null 2>&1 && continue ;;
	npm) command -v npm >/dev/null 2>&1 && continue ;;
	esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing"
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	if [ ! -f /var/cache/kutrace/.apt-updated ] || [ -n "$(find /var/cache/kutrace/.apt-updated -mmin +720)" ]; then
		$SUDO apt-get update -qq
		$SUDO mkdir -p /var/cache/kutrace && $SUDO touch /var/cache/kutrace/.apt-updated
	fi
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
for h in $hooks; do
	[ -e "$h" ] || continue
	sh "$h"
done
