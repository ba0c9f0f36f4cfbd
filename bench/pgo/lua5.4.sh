# The Lua 5.4.4 interpreter (Debian lua5.4 source package, upstream tree):
# all of src/ but luac.c, as upstream's `make linux` builds lua.
HALF=report
CSSPGO=1
DESC="lua 5.4.4 (Debian lua5.4); TRAIN bench/infer_train.lua (tables, strings, closures, sort, patterns, coroutines) -> TIME bench/pgo/lua_time.lua (binary trees, n-body, spectral norm, string building, a JSON-like serializer)"
TRAIN="train.lua 200000"
TIME="time.lua 2"
pgo_fetch() { pgo_orig lua5.4 'lua-5.4*/' | sed 's,$,/src,'; }
pgo_inputs() { cp "$SPGO_SRC/bench/infer_train.lua" train.lua && cp "$SPGO_SRC/bench/pgo/lua_time.lua" time.lua; }
pgo_build() {
  # shellcheck disable=SC2086
  $CC $CFLAGS -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -o "$1" $(ls "$S"/*.c | grep -v '/luac\.c$') $LDFLAGS -lm -ldl
}
