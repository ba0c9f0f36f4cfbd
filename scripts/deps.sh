#!/usr/bin/env bash
# Install the Debian packages a target needs, only those missing.
# Usage: scripts/deps.sh build|check|demo|bench
set -euo pipefail

build_pkgs="cmake make gcc pkg-config libelf-dev libdw-dev libcapstone-dev libzstd-dev zlib1g-dev"
# The real consumers and peers that tests compare against.
tool_pkgs="clang-19 llvm-19 lld-19 linux-perf autofdo valgrind binutils"
# The emulator (spgo emulate): qemu-user runs the program, and the plugin API
# header comes from Debian's qemu source package (needs glib's headers and dpkg-dev).
emu_pkgs="qemu-user libglib2.0-dev dpkg-dev"

case "${1:-build}" in
  build) want="$build_pkgs" ;;
  check|demo) want="$build_pkgs $tool_pkgs" ;;
  bench) want="$build_pkgs $tool_pkgs $emu_pkgs bolt-16 hyperfine time gnuplot-nox tcl python3" ;;
  *) echo "deps.sh: unknown target '$1'" >&2; exit 2 ;;
esac

missing=()
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
$sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
