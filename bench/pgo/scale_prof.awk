# scale_prof.awk: every count of a text AutoFDO profile (spgo gen --format
# text) times s, rounded: awk -v s=1.25 -f bench/pgo/scale_prof.awk IN > OUT.
# The same counts' shape at another total (bench/pgo/sources-findings.md:
# clang-19's code follows the total).
function r(x) { return int(x * s + 0.5) }
/^[^ ]/ { n = split($0, a, ":"); a[n] = r(a[n]); a[n - 1] = r(a[n - 1]); o = a[1]; for (i = 2; i <= n; i++) o = o ":" a[i]; print o; next }
{ match($0, /^ *[0-9.]+: /); pre = substr($0, 1, RLENGTH); k = split(substr($0, RLENGTH + 1), t, " "); o = ""
  for (i = 1; i <= k; i++) { if (t[i] ~ /^[0-9]+$/) t[i] = r(t[i]); else if (j = match(t[i], /:[0-9]+$/)) t[i] = substr(t[i], 1, j) r(substr(t[i], j + 1)); o = o (i > 1 ? " " : "") t[i] }
  print pre o }
