#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages in scripts/packages.txt that are missing, then
# the compiler-rt package that matches the installed clang (its name carries
# clang's major version, which differs between Debian releases:
# scripts/pkgs.py picks it).  Idempotent: does nothing (and needs no
# network) when all are installed.
set -eu
here=$(dirname "$0")
list=$here/packages.txt
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
updated=

is_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

install() {
	echo "[setup] installing:$*"
	if [ -z "$updated" ]; then
		$SUDO apt-get update -q
		updated=1
	fi
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$@"
}

missing=
for p in $(grep -v '^#' "$list"); do
	is_installed "$p" || missing="$missing $p"
done
# shellcheck disable=SC2086
[ -z "$missing" ] || install $missing

if ! rt=$(python3 "$here/pkgs.py" clang-rt 2>/dev/null); then
	[ -n "$updated" ] || { $SUDO apt-get update -q; updated=1; }
	rt=$(python3 "$here/pkgs.py" clang-rt)
fi
is_installed "$rt" || install "$rt"
