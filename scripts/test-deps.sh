#!/usr/bin/env bash
# Makes sure the Debian packages of scripts/test-packages.txt are installed, before any test runs.
# All there (one dpkg-query): prints nothing and exits 0 at once. Some missing: installs them when it can
# (root, or sudo without a password: `sudo -n`), running `apt-get update` first; otherwise exits 1 with one
# message naming the command to run. MCPD_TEST_DEPS=skip skips the check (a machine without dpkg whose
# user installed the equivalents).
set -euo pipefail
list="$(dirname "$0")/test-packages.txt"
[[ ${MCPD_TEST_DEPS:-} == skip ]] && exit 0
mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$list")

if ! command -v dpkg-query >/dev/null; then
  printf 'make test: no dpkg on this machine; install the equivalents of these Debian packages yourself, then run with MCPD_TEST_DEPS=skip:\n  %s\n' "${wanted[*]}" >&2
  exit 1
fi

# Installed = dpkg's status "installed" (a removed package whose config files remain is not).
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${wanted[@]}" 2>/dev/null | awk '$2 == "installed" { print $1 }' || true)
missing=()
for p in "${wanted[@]}"; do grep -qxF "$p" <<<"$installed" || missing+=("$p"); done
((${#missing[@]} == 0)) && exit 0

if [[ $(id -u) == 0 ]]; then
  as=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  as=(sudo -n)
else
  printf 'make test needs %d Debian package(s) its tests use: %s.\nInstall them, then run make test again:\n  sudo apt-get update && sudo apt-get install -y %s\n' \
    "${#missing[@]}" "${missing[*]}" "${missing[*]}" >&2
  exit 1
fi
printf 'make test: installing the Debian packages its tests use: %s\n' "${missing[*]}" >&2
# The package lists may be empty (a fresh container) or stale: update them once, then install.
"${as[@]}" apt-get update -qq
"${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
