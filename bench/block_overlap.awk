# Block overlap of two LLVM text sample profiles (as llvm-profdata merge
# --sample --text prints them): every body sample is a source-level block,
# keyed by its function, the chain of inlined call sites above it and its
# line offset.discriminator; each profile's counts are normalized by their
# sum and the overlap is sum over blocks of min(a, b), in [0, 1].
# Usage: awk -f block_overlap.awk A.txt B.txt
function indent(s) { match(s, /^ */); return RLENGTH }
FNR == 1 { f++; depth = 0 }
/^[^ ]/ {                       # top-level "name:total:head"
  sub(/:[0-9]+:[0-9]+$/, ""); path[0] = $0; depth = 0; next
}
{
  # a line indented d spaces belongs to the profile path[d - 1]
  d = indent($0)
  line = $0; sub(/^ +/, "", line)
  if (match(line, /^[0-9]+(\.[0-9]+)?: [0-9]+( |$)/)) {
    split(line, t, " "); loc = t[1]; cnt = t[2]
    key = path[d - 1] "/" loc
    v[f, key] += cnt; tot[f] += cnt; keys[key] = 1
  } else if (match(line, /^[0-9]+(\.[0-9]+)?: [^ ]+:[0-9]+$/)) {
    split(line, t, " "); callee = t[2]; sub(/:[0-9]+$/, "", callee)
    path[d] = path[d - 1] "@" t[1] callee
  }
}
END {
  s = 0
  for (k in keys) {
    a = tot[1] ? v[1, k] / tot[1] : 0; b = tot[2] ? v[2, k] / tot[2] : 0
    s += a < b ? a : b
  }
  printf "%.4f\n", s
}
