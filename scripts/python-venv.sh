#!/usr/bin/env bash
# Makes a Python virtual environment holding PACKAGES from PyPI, once: a make target that runs a
# Python client installs that client's packages itself (make web-soak). The environment is made
# again when the packages asked for change.
#
# usage: scripts/python-venv.sh VENV PACKAGE==VERSION [PACKAGE==VERSION ...]
set -euo pipefail
venv=$1
shift
stamp="$venv/.packages"
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$*" ] && exit 0
# Debian's python3 has venv and ensurepip in python3-venv.
python3 -c 'import ensurepip, venv' 2>/dev/null || "$(dirname "$0")/ensure-package.sh" python3-venv /usr/share/doc/python3-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "$@"
echo "$*" >"$stamp"
