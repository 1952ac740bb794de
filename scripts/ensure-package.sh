#!/usr/bin/env bash
# Installs a Debian package with apt-get when what it provides is missing (make's targets call
# this before they use a tool or a library): sudo when not root.
#
# usage: scripts/ensure-package.sh PACKAGE PROBE [PACKAGE PROBE ...]
#   PROBE is a command name (looked up on PATH) or an absolute path (a file that must exist).
set -euo pipefail
missing=()
while [ $# -ge 2 ]; do
  package=$1 probe=$2
  shift 2
  case $probe in
    /*) [ -e "$probe" ] || missing+=("$package") ;;
    *) command -v "$probe" >/dev/null || missing+=("$package") ;;
  esac
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=$([ "$(id -u)" = 0 ] || echo sudo)
echo "Installing ${missing[*]}"
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}"
