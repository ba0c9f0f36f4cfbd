# Used by tests/integration/profile_consumers.sh to compare dump_gcov output
# with spgo text output record by record (names must hold no spaces).
# Normalize an LLVM text profile or a dump_gcov listing into sorted records:
# "stack|offset|count|targets" per body line and "stack|total" per function.
function depth(s) { match(s, /^ */); return RLENGTH }
{
  d = depth($0); line = substr($0, d + 1)
  if (dump) d = d / 2
  if (d == 0) {
    if (dump) { name = $1; tot = $2; sub(/total:/, "", tot) }
    else { n = split(line, a, ":"); tot = a[n-1]; name = substr(line, 1, length(line) - length(a[n-1]) - length(a[n]) - 2) }
    st[0] = name; print name "|total|" tot; next
  }
  split(line, w, " "); off = w[1]; sub(/:$/, "", off)
  if (w[2] ~ /^[0-9]+$/) {
    t = ""; for (i = 3; i <= length(w); i++) t = t " " w[i]
    k = ""; for (i = 0; i < d; i++) k = k st[i] "/"
    nt = split(t, tt, " "); for (i = 2; i <= nt; i++) { x = tt[i]; j = i - 1; while (j > 0 && tt[j] > x) { tt[j+1] = tt[j]; j-- } tt[j+1] = x } t = ""; for (i = 1; i <= nt; i++) t = t " " tt[i]
    print k "|" off "|" w[2] "|" t
  } else {
    if (dump) { nm = w[2]; tot = w[3]; sub(/total:/, "", tot) } else { n = split(w[2], a, ":"); nm = a[1]; tot = a[2] }
    st[d] = off ":" nm; k = ""; for (i = 0; i <= d; i++) k = k st[i] "/"
    print k "|total|" tot
  }
}
