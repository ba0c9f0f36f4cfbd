#!/usr/bin/env bash
# make install into a DESTDIR, then the PGO loop of the demo program with
# the installed spgo only: the build and source trees out of reach (their
# paths hidden by running from a copy of the sources in a scratch folder,
# with PATH, SPGO_SRC and the emulator plugin variable unset).  Checks:
# the installed files (program, plugin, library, headers, pkg-config file,
# man pages, spgo(1) and one per command); `spgo emulate` finds its plugin beside itself and records;
# `spgo gen` makes a profile clang-19 uses; a program compiles and links
# against the installed libspgo through pkg-config.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}" "${SPGO_BUILD:?}"
need clang-19 cmake pkg-config qemu-x86_64
scratch
dest=$tmp/dest
DESTDIR=$dest cmake --install "$SPGO_BUILD" --prefix /opt/spgo >install.log 2>&1 || { cat install.log; exit 1; }
for f in bin/spgo lib/spgo/spgo-emulate.so lib/libspgo.a include/spgo/binary.h include/spgo/probe.h \
         lib/pkgconfig/spgo.pc share/man/man1/spgo.1; do
  [ -s "$dest/opt/spgo/$f" ] || bad "not installed: $f"
done
grep -q '^\.SS gen$' "$dest/opt/spgo/share/man/man1/spgo.1" || bad "the man page has no section for gen"
# One page per command (docs/commands), found by man(1) under its name, with
# the command's options and its page's prose.
for c in $(ls "$SPGO_SRC"/docs/commands/spgo-*.md | sed 's|.*/spgo-||; s|\.md$||'); do
  [ -s "$dest/opt/spgo/share/man/man1/spgo-$c.1" ] || bad "not installed: the man page spgo-$c.1"
done
if command -v man >/dev/null; then
  page=$(MANPATH=$dest/opt/spgo/share/man MANWIDTH=100 man spgo-gen 2>&1)
  grep -q -- '--perf-data' <<<"$page" && grep -q 'Probe-based profiles' <<<"$page" ||
    { bad "man spgo-gen does not show gen's options and docs/commands/spgo-gen.md:"; head -20 <<<"$page"; }
fi

# The demo loop with only the installed program.
mkdir work && cp "$SPGO_SRC/examples/minivm/minivm.c" work/ && cd work || exit 1
spgo=$dest/opt/spgo/bin/spgo
clang-19 -O2 -g -fdebug-info-for-profiling -o minivm minivm.c || exit 1
env -u SPGO_SRC -u SPGO_BUILD -u SPGO_EMULATE_PLUGIN "$spgo" emulate -c 5000 -o e.data -- ./minivm 1 \
  >/dev/null 2>emu.err || { bad "installed spgo emulate:"; cat emu.err; }
env -u SPGO_SRC -u SPGO_BUILD "$spgo" gen --binary minivm --perf-data e.data -o minivm.prof --quiet ||
  bad "installed spgo gen"
clang-19 -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=minivm.prof -o minivm-pgo minivm.c ||
  bad "clang-19 with the installed spgo's profile"

# libspgo through pkg-config: open a binary, print its build-id.
cat > use.c <<'C'
#include <stdio.h>
#include "spgo/binary.h"
#include "spgo/common.h"
int main(int argc, char **argv)
{
	struct spgo_binary *bin;
	if (argc < 2 || spgo_binary_open(&bin, argv[1], NULL) < 0)
		return 1;
	size_t n;
	const uint8_t *id = spgo_binary_build_id(bin, &n);
	char hex[129];
	spgo_build_id_hex(id, n, hex);
	printf("%s\n", hex);
	spgo_binary_close(bin);
	return 0;
}
C
# The .pc file finds its prefix from where it lies (DESTDIR or a moved tree).
export PKG_CONFIG_PATH=$dest/opt/spgo/lib/pkgconfig
# A sanitized build (make check's second pass) installs a sanitized libspgo.
san=""
grep -q '^SPGO_SANITIZE:BOOL=ON' "$SPGO_BUILD/CMakeCache.txt" 2>/dev/null && san="-fsanitize=address,undefined"
# shellcheck disable=SC2046,SC2086
cc -std=c17 $san -o use use.c $(pkg-config --cflags spgo) $(pkg-config --libs --static spgo) 2>cc.err ||
  { bad "compiling against the installed libspgo:"; head -5 cc.err; }
want=$(readelf -n minivm | awk '/Build ID/ {print $3}')
[ -x use ] && [ "$(./use minivm)" = "$want" ] || bad "the program on libspgo printed '$(./use minivm 2>&1)', not $want"
[ $fail -eq 0 ] && echo "install: ok (installed under $dest/opt/spgo, demo loop and libspgo work)"
exit $fail
