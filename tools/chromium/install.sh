#!/usr/bin/env bash
# Makes sure Debian's headless-capable Chromium is installed, for the tests that open a page in a
# real browser (the simulator's HTML report). Installs the `chromium` package with apt-get when
# it is missing (as root, or through sudo when not root), after `apt-get update`.
#
# Usage: install.sh            prints the chromium executable on its last line of stdout
# Env:   CHROMIUM (an executable to use instead; nothing is installed)
set -euo pipefail

log() { echo "chromium/install.sh: $*" >&2; }

if [[ -n ${CHROMIUM:-} ]]; then
  [[ -x $CHROMIUM ]] || { log "ERROR: CHROMIUM=$CHROMIUM is not an executable"; exit 1; }
  echo "$CHROMIUM"
  exit 0
fi

find_chromium() { command -v chromium || command -v chromium-browser || true; }

found=$(find_chromium)
if [[ -z $found ]]; then
  if [[ $(id -u) -eq 0 ]]; then
    as_root=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    log "ERROR: chromium is not installed and this user can neither run apt-get nor sudo without a password;"
    log "install Debian's chromium package (apt-get install chromium) or set CHROMIUM=/path/to/chromium"
    exit 1
  fi
  log "installing Debian's chromium package"
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq >&2
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >&2
  found=$(find_chromium)
  [[ -n $found ]] || { log "ERROR: apt-get installed chromium but no chromium is on PATH"; exit 1; }
fi
log "using $found ($("$found" --version 2>/dev/null || echo 'version unknown'))"
echo "$found"
