#!/usr/bin/env bash
# Installs moto's server (pinned in requirements.txt) into a Python virtual environment under the
# project's cache, or reuses the one already there, and prints the path of its `moto_server`
# Python on the last line of stdout (run moto as `<python> -m moto.server`).
#
# Usage: install-moto.sh
# Env:   KARPENTER_TS_CACHE (default $HOME/.cache/karpenter-ts), PYTHON (default python3, >= 3.9).
#
# The venv's folder is named for the hash of requirements.txt, so changing a pin installs a new
# one; it is built under a temporary name and renamed when complete, so an interrupted install
# never counts as present (the same rule as tools/local-cluster/build.sh).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE_ROOT=${KARPENTER_TS_CACHE:-$HOME/.cache/karpenter-ts}
PYTHON=${PYTHON:-python3}
REQ="$HERE/requirements.txt"

log() { echo "install-moto.sh: $*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

hash=$(sha256sum "$REQ" | cut -c1-12)
VENV="$CACHE_ROOT/aws-emulator/moto-$hash"
mkdir -p "$CACHE_ROOT/aws-emulator"
# Test runs of several packages may start at once: one installs, the others wait and reuse it.
exec 9>"$CACHE_ROOT/aws-emulator/.install.lock"
flock 9
if [[ -x "$VENV/bin/python" && -f "$VENV/.installed" ]]; then
  log "reusing $VENV"
  echo "$VENV/bin/python"
  exit 0
fi

command -v "$PYTHON" >/dev/null || die "$PYTHON is not on PATH (Python >= 3.9 is needed for moto)"
PARTIAL="$CACHE_ROOT/aws-emulator/.moto-$hash.partial.$$"
rm -rf "$PARTIAL"
trap 'rm -rf "$PARTIAL"' EXIT
start=$(date +%s)
log "creating $VENV from $REQ"
"$PYTHON" -m venv "$PARTIAL" || die "$PYTHON -m venv failed (on Debian: apt-get install python3-venv)"
"$PARTIAL/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$REQ" ||
  die "pip install -r $REQ failed (its error is above)"
# A venv's console scripts name its path in their shebangs, so the emulator runs
# `<venv>/bin/python -m moto.server`, which works after the rename (Python finds the venv from
# its own location).
"$PARTIAL/bin/python" -c 'import moto.server' || die "moto.server does not import in the new venv"
touch "$PARTIAL/.installed"
rm -rf "$VENV"
mv "$PARTIAL" "$VENV"
trap - EXIT
log "installed moto into $VENV in $(($(date +%s) - start))s ($(du -sh "$VENV" | cut -f1))"
echo "$VENV/bin/python"
