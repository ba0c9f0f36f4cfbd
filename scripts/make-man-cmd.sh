#!/bin/sh
# Write the man page spgo-CMD(1) of one command from the two sources the
# reader also sees: the command's `--help` (synopsis and options, made from
# its option table) and its page docs/commands/spgo-CMD.md (the prose),
# followed by the format pages that page links to (docs/formats/*.md).
# Markdown is turned into man(7) by the few rules these pages use: "#" and
# "##" headings, paragraphs, indented or fenced code, tables kept as text,
# `code` in bold, **strong** in bold, links as their text.
# Usage: make-man-cmd.sh SPGO CMD DOCS_DIR OUT
set -eu
spgo=$1; cmd=$2; docs=$3; out=$4
page=$docs/commands/spgo-$cmd.md
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT INT TERM HUP
[ -f "$page" ] || { echo "make-man-cmd.sh: no page $page" >&2; exit 1; }

esc() { sed -e 's/\\/\\e/g' -e 's/^\([.'"'"']\)/\\\&\1/'; }

# md2man FILE SECTION: the body of a page as man(7); its "# title" becomes
# the section heading SECTION (or is dropped when SECTION is empty).
md2man() {
  awk -v sect="$2" '
    # wrap(s, re, open, n): each match of re, less n characters at each
    # end, between open and \fR (mawk has no gensub).
    function wrap(s, re, open, n,   out) {
      out = ""
      while (match(s, re)) {
        out = out substr(s, 1, RSTART - 1) open substr(s, RSTART + n, RLENGTH - 2 * n) "\\fR"
        s = substr(s, RSTART + RLENGTH)
      }
      return out s
    }
    function unlink(s,   out, m) {
      out = ""
      while (match(s, /\[[^]]*\]\([^)]*\)/)) {
        m = substr(s, RSTART, RLENGTH)
        out = out substr(s, 1, RSTART - 1) substr(m, 2, index(m, "](") - 2)
        s = substr(s, RSTART + RLENGTH)
      }
      return out s
    }
    function inline(s) {
      gsub(/\\/, "\\e", s)
      s = unlink(s)
      s = wrap(s, "[*][*][^*]+[*][*]", "\\fB", 2)
      s = wrap(s, "`[^`]+`", "\\fB", 1)
      if (s ~ /^[.'"'"']/) s = "\\&" s
      return s
    }
    function endcode() { if (code) { print ".fi"; print ".in"; code = 0 } }
    /^```/ { if (fence) { fence = 0; endcode() } else { fence = 1; print ".PP"; print ".in +4"; print ".nf"; code = 1 } next }
    fence { s = $0; gsub(/\\/, "\\e", s); if (s ~ /^[.'"'"']/) s = "\\&" s; print s; next }
    /^# / { if (sect != "") { print ".SH " toupper(sect) } next }
    /^## / { endcode(); print ".SS " inline(substr($0, 4)); next }
    /^    / || (code && /^$/) {
      if (!code) { print ".PP"; print ".in +4"; print ".nf"; code = 1 }
      s = $0; sub(/^    /, "", s); gsub(/\\/, "\\e", s); if (s ~ /^[.'"'"']/) s = "\\&" s
      print s; next }
    { endcode() }
    /^$/ { para = 1; next }
    /^\|/ { if (para) { print ".PP"; para = 0 } print ".nf"; print inline($0); print ".fi"; next }
    { if (para) { print ".PP"; para = 0 } print inline($0) }
    END { endcode() }
  ' "$1"
}

title=$(sed -n '1s/^# spgo [a-z]*: *//p' "$page")
{
  printf '.TH SPGO-%s 1 "" "spgo" "User Commands"\n' "$(echo "$cmd" | tr a-z A-Z)"
  printf '.SH NAME\n'
  printf 'spgo-%s \\- %s\n' "$cmd" "$(printf '%s' "$title" | esc)"
  printf '.SH SYNOPSIS AND OPTIONS\n.nf\n'
  "$spgo" "$cmd" --help 2>&1 | esc
  printf '.fi\n'
  md2man "$page" DESCRIPTION
  for f in $(grep -o '\.\./formats/[a-z-]*\.md' "$page" | sort -u); do
    fmt=$docs/formats/${f#../formats/}
    [ -f "$fmt" ] && md2man "$fmt" "$(sed -n '1s/^# //p' "$fmt")"
  done
  printf '.SH SEE ALSO\n.BR spgo (1)\n'
} > "$tmp"
mv "$tmp" "$out"
trap - EXIT INT TERM HUP
