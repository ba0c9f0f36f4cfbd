#!/usr/bin/env bash
# check-layering.sh [TREE]: every #include in TREE/src and TREE/include/spgo
# against the layering table of TREE/CONTRIBUTING.md (the rows between the
# "layering: begin" and "layering: end" markers).  TREE defaults to the
# tree this script is in.  Prints one line per include that goes against the
# table, "FILE:LINE: what", and exits 1 if there is any; else prints
# "layering: N includes in M files follow the table" and exits 0.
#
# What it checks, for a file of stage S (src/S/..., or a public header the
# table gives to S):
#  - "spgo/X.h": X.h's stage must be S or one S may include;
#  - "T/X.h" (a header of src/T): the same for T, and a header named
#    *_impl.h is T's own: no other stage includes it;
#  - "X.h" (no folder): S's own header, always allowed;
#  - <LIB...> for a library the table names (elfutils, capstone, zlib,
#    zstd headers): S must be one of the stages the table lets use it.
# A folder of src/ or a public header the table does not name is an error
# too (a new stage gets its row first), and so is a table whose "may
# include" list names a stage later in the chain than the row's own.
set -euo pipefail
tree=${1:-$(cd "$(dirname "$0")/.." && pwd)}
doc="$tree/CONTRIBUTING.md"
[ -f "$doc" ] || { echo "check-layering: $doc: no such file" >&2; exit 2; }

# The table: "stage|headers|may include|libraries" per row, in chain order.
table=$(awk '
  /<!-- layering: begin -->/ { on = 1; next }
  /<!-- layering: end -->/   { on = 0 }
  on && /^\|/ && !/^\| *(stage|---)/ {
    n = split($0, c, "|")
    for (i = 2; i <= 5; i++) { gsub(/`|^ +| +$/, "", c[i]); gsub(/ *, */, ",", c[i]) }
    print c[2] "|" c[3] "|" c[4] "|" c[5]
  }' "$doc")
[ -n "$table" ] || { echo "check-layering: $doc: no layering table between its markers" >&2; exit 2; }

# Every #include line of the C sources and headers: "FILE:LINE:TARGET:KIND"
# with KIND q (quoted) or a (angle brackets).
includes=$(cd "$tree" && find src include/spgo -name '*.[ch]' | LC_ALL=C sort |
  xargs awk '
    match($0, /^[ \t]*#[ \t]*include[ \t]*["<][^">]+[">]/) {
      s = substr($0, RSTART, RLENGTH); k = s ~ /"/ ? "q" : "a"
      sub(/^[^"<]*["<]/, "", s); sub(/[">]$/, "", s)
      print FILENAME ":" FNR ":" s ":" k
    }')
folders=$(cd "$tree/src" && ls -d */ | tr -d /)
headers=$(cd "$tree/include/spgo" && ls *.h)

printf '%s\n' "$table" | awk -F'|' -v folders="$folders" -v headers="$headers" -v inc="$includes" '
  function fail(where, msg) { print where ": " msg; bad++ }
  # does the angle include h match a library pattern p ("gelf.h", "elfutils/*")?
  function libmatch(h, p) { return p ~ /\*$/ ? index(h, substr(p, 1, length(p) - 1)) == 1 : h == p }
  {
    st = $1; rank[st] = NR; order[NR] = st
    nh = split($2, hs, ","); for (i = 1; i <= nh; i++) if (hs[i] != "" && hs[i] != "(none)") { sub(/^spgo\//, "", hs[i]); owner[hs[i]] = st }
    may[st, st] = 1; may[st, "common"] = 1
    nm = split($3, ms, ","); for (i = 1; i <= nm; i++) if (ms[i] != "" && ms[i] != "(none)") { may[st, ms[i]] = 1; mayl[st, i] = ms[i]; mayn[st] = nm }
    nl = split($4, ls, ","); for (i = 1; i <= nl; i++) if (ls[i] != "" && ls[i] != "(none)") { lib[st, ls[i]] = 1; libs[ls[i]] = 1 }
  }
  END {
    # The table itself: only stages earlier in the chain.
    for (r = 1; r <= NR; r++) { st = order[r]
      for (i = 1; i <= mayn[st]; i++) { t = mayl[st, i]
        if (!(t in rank)) fail("CONTRIBUTING.md", "stage " st " may include \"" t "\", which is no stage of the table")
        else if (rank[t] >= rank[st]) fail("CONTRIBUTING.md", "stage " st " may include " t ", which comes after it in the chain") } }
    nf = split(folders, fs, "\n"); for (i = 1; i <= nf; i++) if (fs[i] != "" && !(fs[i] in rank)) fail("src/" fs[i], "a folder of src/ with no row in the layering table (CONTRIBUTING.md)")
    nh = split(headers, hh, "\n"); for (i = 1; i <= nh; i++) if (hh[i] != "" && !(hh[i] in owner)) fail("include/spgo/" hh[i], "a public header no stage owns in the layering table (CONTRIBUTING.md)")
    n = split(inc, lines, "\n"); files = 0
    for (i = 1; i <= n; i++) {
      if (lines[i] == "") continue
      split(lines[i], f, ":"); file = f[1]; line = f[2]; h = f[3]; kind = f[4]
      if (!(file in seen)) { seen[file] = 1; files++ }
      if (file ~ /^include\/spgo\//) { hn = file; sub(/^include\/spgo\//, "", hn); st = owner[hn] }
      else { st = file; sub(/^src\//, "", st); sub(/\/.*/, "", st) }
      if (st == "" || !(st in rank)) continue   # reported above
      where = file ":" line; checked++
      if (kind == "a") {
        for (l in libs) if (libmatch(h, l) && !lib[st, l])
          fail(where, st " may not include <" h ">: the layering table gives " l " to other stages")
        continue
      }
      if (h ~ /^spgo\//) {
        hn = h; sub(/^spgo\//, "", hn)
        if (!(hn in owner)) fail(where, "\"" h "\" is no public header of the layering table")
        else if (!may[st, owner[hn]]) fail(where, st " may not include \"" h "\" (stage " owner[hn] "): see the layering table in CONTRIBUTING.md")
      } else if (h ~ /\//) {
        t = h; sub(/\/.*/, "", t)
        if (!(t in rank)) fail(where, "\"" h "\" is in no stage of the layering table")
        else if (t != st && h ~ /_impl\.h$/) fail(where, st " may not include \"" h "\": a *_impl.h header is private to " t)
        else if (!may[st, t]) fail(where, st " may not include \"" h "\" (stage " t "): see the layering table in CONTRIBUTING.md")
      }
    }
    if (bad) { print "layering: " bad " problem(s)"; exit 1 }
    print "layering: " checked " includes in " files " files follow the table"
  }'
