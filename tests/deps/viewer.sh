#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# npm install of playwright-core (the browser driver) for the viewer tests,
# pinned by tests/browser/package-lock.json.  Does nothing when present.
set -eu
cd "$(dirname "$0")/../browser"
[ -f node_modules/playwright-core/package.json ] && exit 0
command -v npm >/dev/null 2>&1 || { echo "viewer.sh: npm missing" >&2; exit 0; }
npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1 ||
	npm install --no-audit --no-fund --loglevel=error >/dev/null
