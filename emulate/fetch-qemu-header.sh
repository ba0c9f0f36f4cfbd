#!/usr/bin/env bash
# Fetch QEMU's plugin API header (include/qemu/qemu-plugin.h) from Debian's
# qemu source package, for the build of the spgo emulate plugin.  Nothing of
# QEMU is kept in the repository: the source package is downloaded into a
# cache directory and only the one header is extracted into OUTDIR.
#
# Usage: emulate/fetch-qemu-header.sh OUTDIR
#   OUTDIR/qemu/qemu-plugin.h is created (include it as <qemu/qemu-plugin.h>).
# Usage: emulate/fetch-qemu-header.sh --deb-src-only
#   only make sure apt has deb-src entries (kept for older callers; use
#   scripts/debian-source.sh --enable-only).
# Env: SPGO_CACHE (default ~/.cache/spgo) holds the downloaded source package
# and the header extracted from it.
#
# The source package is fetched by scripts/debian-source.sh, which enables
# deb-src in a sources file of its own when apt has none.
set -euo pipefail
fetch="$(cd "$(dirname "$0")/.." && pwd)/scripts/debian-source.sh"
if [ "${1:-}" = "--deb-src-only" ]; then
  exec "$fetch" --enable-only
fi
out=${1:?usage: fetch-qemu-header.sh OUTDIR}
hdr="$out/qemu/qemu-plugin.h"
[ -s "$hdr" ] && exit 0
cache=${SPGO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spgo}/qemu-src
mkdir -p "$cache" "$out/qemu"
tarball() { ls "$cache"/qemu_*.orig.tar.* 2>/dev/null | head -n1; }
if [ -z "$(tarball)" ]; then
  "$fetch" --download-only qemu "$cache"
fi
tb=$(tarball)
[ -n "$tb" ] || { echo "fetch-qemu-header: qemu source package not downloaded" >&2; exit 1; }
# The header is extracted once per source package into the cache beside it
# (unpacking the 23 MB .xz takes seconds, and every build tree asks).
cached="$cache/qemu-plugin.h.$(basename "$tb")"
if [ ! -s "$cached" ]; then
  tar -xOf "$tb" --wildcards --occurrence=1 '*/include/qemu/qemu-plugin.h' > "$cached.tmp.$$"
  [ -s "$cached.tmp.$$" ] || { rm -f "$cached.tmp.$$"; echo "fetch-qemu-header: no qemu-plugin.h in $tb" >&2; exit 1; }
  mv "$cached.tmp.$$" "$cached"
fi
cp "$cached" "$hdr.tmp"
mv "$hdr.tmp" "$hdr"
