#!/usr/bin/env bash
# Fetch a Debian source package for a benchmark or a build step, never into
# the repository.
#
# Usage: scripts/debian-source.sh [--download-only] PKG DESTDIR
#        scripts/debian-source.sh --enable-only
#   Unpacks PKG's source package into DESTDIR (apt-get source) and prints the
#   path of the unpacked tree; if DESTDIR already holds one (PKG-*/), prints
#   it and fetches nothing.  With --download-only, only the package files
#   (.dsc, .orig.tar.*, ...) are downloaded into DESTDIR and nothing printed.
#   --enable-only: only make sure apt has deb-src entries.
#
# When apt has no deb-src entry for PKG, one sources file of our own
# (/etc/apt/sources.list.d/spgo-deb-src.sources, or .list for one-line
# sources) is written mirroring the machine's enabled deb entries, and the
# package lists are updated.  Nothing else under /etc/apt is changed.
set -euo pipefail
download_only=0 enable_only=0
if [ "${1:-}" = "--download-only" ]; then download_only=1; shift; fi
if [ "${1:-}" = "--enable-only" ]; then enable_only=1; fi
if [ "$enable_only" -eq 0 ]; then
pkg=${1:?usage: debian-source.sh [--download-only] PKG DESTDIR}
dest=${2:?usage: debian-source.sh [--download-only] PKG DESTDIR}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
fi

unpacked() { ls -d "$dest/$pkg"-*/ 2>/dev/null | head -n1; }
if [ "$enable_only" -eq 0 ] && [ "$download_only" -eq 0 ] && [ -n "$(unpacked)" ]; then
  d=$(unpacked); echo "${d%/}"; exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

enable_deb_src() {
  local tmp f
  tmp=$(mktemp)
  # deb822 files: each stanza whose Types lists "deb", as deb-src.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && [ "$(basename "$f")" != spgo-deb-src.sources ] || continue
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)Types:[^\n]*(^|[ \t])deb([ \t\n]|$)/ { gsub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >> "$tmp"
  done
  if [ -s "$tmp" ]; then
    $sudo install -m 644 "$tmp" /etc/apt/sources.list.d/spgo-deb-src.sources
  fi
  # One-line format.
  : > "$tmp"
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && [ "$(basename "$f")" != spgo-deb-src.list ] || continue
    sed -n 's/^deb \(.*\)$/deb-src \1/p' "$f" >> "$tmp"
  done
  if [ -s "$tmp" ]; then
    $sudo install -m 644 "$tmp" /etc/apt/sources.list.d/spgo-deb-src.list
  fi
  rm -f "$tmp"
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
}

if [ "$enable_only" -eq 1 ]; then
  grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/ || enable_deb_src
  exit 0
fi
if ! apt-get source --print-uris -qq "$pkg" >/dev/null 2>&1; then
  echo "debian-source: enabling deb-src to fetch the $pkg source package" >&2
  enable_deb_src
fi
log=$(mktemp)
if [ "$download_only" -eq 1 ]; then
  (cd "$dest" && apt-get source --download-only "$pkg") > "$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 1; }
  rm -f "$log"
  exit 0
fi
(cd "$dest" && apt-get source "$pkg") > "$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 1; }
rm -f "$log"
d=$(unpacked)
[ -n "$d" ] || { echo "debian-source: $pkg: no unpacked source tree in $dest" >&2; exit 1; }
echo "${d%/}"
