# pcre2grep over PCRE2 10.42 (Debian pcre2 source package), the 8-bit
# library without JIT (the interpreter), from upstream's generic config.h
# and pcre2.h (config.h.generic, pcre2.h.generic, pcre2_chartables.c.dist:
# what upstream provides for builds without configure) plus -D options.
HALF=report
DESC="pcre2grep 10.42 (Debian pcre2, no JIT, config.h.generic); TRAIN: 6 regexes (identifiers, calls, literals, comments) over sqlite3.c (x5) -> TIME: 6 other regexes (words, case-insensitive alternation, backreference, lookahead, Unicode classes) over the mixed corpus"
TRAIN="-c -e [A-Za-z_][A-Za-z0-9_]*\( -e 0x[0-9a-fA-F]+ -e /\*.*\*/ -e sqlite3[A-Z][a-zA-Z]+ -e \"[^\"]*\" -e (if|while|for)\s*\( train.in train.in train.in train.in train.in"
TIME="-c -i -e \b(error|warning|fail(ed|ure)?)\b -e (\w+)\s+\1 -e ^\s*#\s*define\s+\w+\s+\d+ -e \w+(?=\() -e [\p{Lu}][\p{Ll}]{3,} -e <[a-z]+[^>]*> time.in"
pgo_fetch() {
  local d
  d=$(pgo_orig pcre2 'pcre2-*/') || return 1
  d="$d/src"
  [ -f "$d/config.h" ] || cp "$d/config.h.generic" "$d/config.h"
  [ -f "$d/pcre2.h" ] || cp "$d/pcre2.h.generic" "$d/pcre2.h"
  [ -f "$d/pcre2_chartables.c" ] || cp "$d/pcre2_chartables.c.dist" "$d/pcre2_chartables.c"
  echo "$d"
}
pgo_inputs() { pgo_corpus train train.in && pgo_corpus time time.in; }
pgo_build() {
  local f files=""
  for f in auto_possess chartables compile config context convert dfa_match error extuni \
           find_bracket jit_compile maketables match match_data newline ord2utf pattern_info \
           script_run serialize string_utils study substitute substring tables ucd valid_utf xclass; do
    files="$files $S/pcre2_$f.c"
  done
  # shellcheck disable=SC2086
  $CC $CFLAGS -DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 -DSUPPORT_PCRE2_8 -DSUPPORT_UNICODE \
    -DHAVE_UNISTD_H -DHAVE_DIRENT_H -DHAVE_SYS_STAT_H -DHAVE_SYS_TYPES_H -DHAVE_STRERROR \
    -DHAVE_MEMMOVE -DHAVE_INTTYPES_H -DHAVE_STDINT_H -I"$S" -o "$1" $files "$S/pcre2grep.c" $LDFLAGS
}
