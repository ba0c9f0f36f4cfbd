# measure REPS CMD...: run CMD REPS times under /usr/bin/time and print
# "median_wall_s max_rss_kb median_cpu_s" (cpu: user + system).  CMD's
# output goes into a pipe drained by wc: /dev/null is not always a device
# (on some sandboxes it is a regular file, and writing it costs).  A run
# that fails prints its stderr and makes measure fail: a timing of an
# error is no timing.  Scratch files in MEASURE_DIR (default BENCH_WORK).
# Sourced by bench scripts.
measure() {
  local n=$1 d=${MEASURE_DIR:-$BENCH_WORK}; shift
  local ts=() cs=() rss=0 t m u sy
  for _ in $(seq "$n"); do
    /usr/bin/time -f '%e %M %U %S' -o "$d/time.txt" "$@" 2> "$d/err.txt" |
      wc -c > "$d/bytes.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || { cat "$d/err.txt" >&2; return 1; }
    read -r t m u sy < "$d/time.txt"
    ts+=("$t"); cs+=("$(awk -v u="$u" -v s="$sy" 'BEGIN { print u + s }')")
    [ "$m" -gt "$rss" ] && rss=$m
  done
  local mt mc
  mt=$(printf '%s\n' "${ts[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  mc=$(printf '%s\n' "${cs[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  echo "$mt $rss $mc"
}
