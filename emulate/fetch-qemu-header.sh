#!/usr/bin/env bash
# Fetch QEMU's plugin API header (include/qemu/qemu-plugin.h) from Debian's
# qemu source package, for the build of the spgo emulate plugin.  Nothing of
# QEMU is kept in the repository: the source package is downloaded into a
# cache directory and only the one header is extracted into OUTDIR.
#
# Usage: emulate/fetch-qemu-header.sh OUTDIR
#   OUTDIR/qemu/qemu-plugin.h is created (include it as <qemu/qemu-plugin.h>).
# Usage: emulate/fetch-qemu-header.sh --deb-src-only
#   only make sure apt has deb-src entries (for other source packages).
# Env: SPGO_CACHE (default ~/.cache/spgo) holds the downloaded source package.
#
# If no deb-src entry exists, one is added that mirrors the deb entries of
# /etc/apt/sources.list.d/debian.sources (or sources.list), then apt-get update.
set -euo pipefail
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

have_src() {
  grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

enable_deb_src() {
  if ! have_src; then
    src=/etc/apt/sources.list.d/debian.sources
    tmp=$(mktemp)
    if [ -f "$src" ]; then
      # deb822: copy each stanza whose Types has "deb", as deb-src.
      awk 'BEGIN{RS=""; ORS="\n\n"} /(^|\n)Types:[^\n]*deb/ {
             gsub(/Types:[^\n]*/, "Types: deb-src"); print }' "$src" > "$tmp"
      $sudo install -m 644 "$tmp" /etc/apt/sources.list.d/spgo-deb-src.sources
    elif [ -f /etc/apt/sources.list ]; then
      sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list > "$tmp"
      $sudo install -m 644 "$tmp" /etc/apt/sources.list.d/spgo-deb-src.list
    else
      echo "fetch-qemu-header: no apt sources found to mirror as deb-src" >&2
      rm -f "$tmp"; exit 1
    fi
    rm -f "$tmp"
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  fi
}

if [ "${1:-}" = "--deb-src-only" ]; then
  enable_deb_src
  exit 0
fi
out=${1:?usage: fetch-qemu-header.sh OUTDIR}
hdr="$out/qemu/qemu-plugin.h"
[ -s "$hdr" ] && exit 0
cache=${SPGO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spgo}/qemu-src
mkdir -p "$cache" "$out/qemu"
tarball() { ls "$cache"/qemu_*.orig.tar.* 2>/dev/null | head -n1; }
if [ -z "$(tarball)" ]; then
  enable_deb_src
  (cd "$cache" && apt-get source --download-only -qq qemu >/dev/null 2>&1)
fi
tb=$(tarball)
[ -n "$tb" ] || { echo "fetch-qemu-header: qemu source package not downloaded" >&2; exit 1; }
member=$(tar -tf "$tb" --wildcards '*/include/qemu/qemu-plugin.h' | head -n1)
tar -xOf "$tb" "$member" > "$hdr.tmp"
mv "$hdr.tmp" "$hdr"
