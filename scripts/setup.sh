#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages in scripts/packages.txt that are missing.
# Idempotent: does nothing (and needs no network) when all are installed.
set -eu
list=$(dirname "$0")/packages.txt
missing=
for p in $(grep -v '^#' "$list"); do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
echo "[setup] installing:$missing"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
