#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages listed in tests/deps/*.apt that are missing,
# then runs every tests/deps/*.sh hook (npm installs and the like).
# Safe to run repeatedly: it does nothing when all is present.
set -eu
cd "$(dirname "$0")/.."
missing=""
for p in $(cat tests/deps/*.apt | sed 's/#.*//' | sort -u); do
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
for h in tests/deps/*.sh; do
	[ -e "$h" ] || continue
	sh "$h"
done
