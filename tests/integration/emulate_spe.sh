#!/usr/bin/env bash
# spgo emulate --spe / --spe-pbt: Arm SPE packets in the AUX area, as the
# real tools read them.
#  1. Debian's perf (6.1) dumps the same packets spgo reads (perf script -D
#     against spgo script --spe-packets), byte for byte and word for word;
#     perf 6.1 does not know the previous-branch-target packet (index 4: it
#     prints "ADDR <payload> (4)" and "unsupported address packet index"):
#     those lines are checked against the payload bytes instead.
#  2. The records perf synthesizes (--itrace=i1i: one sample per record,
#     thread and PC) are spgo's samples, in the same order; also from the
#     pipe format (perf inject -o -) and through read(2).
#  3. Profiles from SPE, with and without the previous branch target, from
#     the perf.data and from the perf script text of it, are within 3% of
#     the exact counts (similarity); a decoder that loses targets, not-taken
#     flags or the inferred ranges falls well below.  gcov for gcc (which
#     gcc takes) and a probe profile (clang pseudo-probes, within 3% too).
#  4. A capture cut inside its AUX data, and one with an unknown packet, are
#     read with a warning naming the offset, not an error.
#  5. An AArch64 program under qemu-aarch64 (whose branch stacks carry a
#     system call's two records, svc -> 0 and 0 -> the return point): perf
#     6.1 synthesizes as many records as spgo reads, and the profile is
#     within 3% of the exact counts.  Before spe_out.c read the plugin's
#     three-word branch records, these fell to about 58%.
source "$SPGO_SRC/tests/data/emulate/common.sh"
command -v perf >/dev/null || { echo "skip: perf not installed"; exit 77; }
gcc -O2 -g -o br "$data/branchy.c"

"$SPGO" emulate --spe-pbt -c 53 -o pbt.data --ground-truth br.gt -- ./br 100000 > /dev/null 2> emu.txt
"$SPGO" emulate --spe -c 53 -o spe.data -- ./br 100000 > /dev/null 2>> emu.txt

# --- 1. packets ---------------------------------------------------------------
for d in pbt spe; do
  "$SPGO" script -i $d.data --spe-packets > $d.spgo
  perf script -i $d.data -D 2> /dev/null | grep -E '^\.  [0-9a-f]{8}:|ARM SPE data' > $d.perf
  [ "$(grep -c ' PC 0x' $d.spgo)" -gt 1000 ] || fail "$d: too few SPE records dumped"
  sed -E 's/ADDR 0x[0-9a-f]+ \(4\)$/PBT/; s/PBT 0x[0-9a-f]+ el[0-3] ns=[01]$/PBT/' $d.spgo > $d.a
  sed -E 's/ADDR 0x[0-9a-f]+ \(4\)$/PBT/; s/PBT 0x[0-9a-f]+ el[0-3] ns=[01]$/PBT/' $d.perf > $d.b
  cmp -s $d.a $d.b || { diff $d.a $d.b | head; fail "$d: perf and spgo dump different packets"; }
done
grep -q ' NOT-TAKEN' spe.perf || fail "no not-taken branch in the capture"
grep -q ' B COND' spe.perf || fail "no conditional branch in the capture"
grep -q 'PBT' spe.spgo && fail "--spe wrote previous-branch-target packets"
# the previous branch target, decoded by spgo, against its bytes (perf 6.1 prints the payload)
n=0
while read -r b0 b1 b2 b3 b4 b5 b6 b7 b8 word addr el ns; do
  v=$((16#$b8$b7$b6$b5$b4$b3$b2$b1))
  [ "$b0" = b4 ] && [ "$word" = PBT ] || fail "bad PBT line: $b0 $word"
  [ $((addr)) -eq $((v & 0xffffffffffffff)) ] && [ "$el" = "el$(((v >> 61) & 3))" ] &&
    [ "$ns" = "ns=$(((v >> 63) & 1))" ] || fail "PBT $addr $el $ns is not the payload $b1..$b8"
  n=$((n + 1))
done < <(grep ' PBT 0x' pbt.spgo | cut -c14-)
[ $n -gt 1000 ] || fail "only $n previous-branch-target packets"

# --- 2. records ------------------------------------------------------------------
for d in pbt spe; do
  # (perf 6.1 first hands out an empty record, ip 0, before the first decoded one)
  perf script -i $d.data --itrace=i1i -F tid,ip 2> /dev/null | awk '$2 != "0" { print $1, $2 }' > $d.prec
  "$SPGO" script -i $d.data -F tid,ip | awk '{ print $1, $2 }' > $d.srec
  [ "$(wc -l < $d.srec)" -gt 1000 ] || fail "$d: too few records"
  cmp -s $d.prec $d.srec || { diff $d.prec $d.srec | head; fail "$d: perf and spgo records differ"; }
done

# the same in pipe format (perf inject -o -: the AUX data follows its
# record in the stream) and through read(2) instead of a mapping
perf inject -i spe.data -o - > pipe.data 2> /dev/null
"$SPGO" script -i - -F tid,ip < pipe.data | awk '{ print $1, $2 }' > pipe.srec
SPGO_PERF_NO_MMAP=1 "$SPGO" script -i spe.data -F tid,ip | awk '{ print $1, $2 }' > read.srec
cmp -s pipe.srec spe.srec || fail "pipe-format SPE gives other records"
cmp -s read.srec spe.srec || fail "SPE read through read(2) gives other records"

# --- 3. profiles against the exact counts ----------------------------------------
"$SPGO" gen --binary br --ground-truth br.gt -o truth.prof --format text 2> /dev/null
similarity() { "$SPGO" overlap truth.prof "$1" | awk '/profile similarity/ { sub(/%/, "", $NF); print $NF }'; }
for d in pbt spe; do
  "$SPGO" gen --binary br --perf-data $d.data -o $d.prof --format text 2> /dev/null
  s=$(similarity $d.prof)
  awk -v s="$s" 'BEGIN { exit !(s >= 97) }' || fail "$d: similarity $s% < 97%"
  # the same samples as perf script text (--itrace=bl1 -F ip,brstack's form)
  "$SPGO" script -i $d.data -F ip,brstack --show-mmap-events > $d.txt
  grep -q '/PN/' $d.txt || fail "$d: no not-taken flag in the text"
  "$SPGO" gen --binary br --perf-script $d.txt --spe -o $d.tprof --format text 2> /dev/null
  cmp -s $d.prof $d.tprof || fail "$d: the text gives another profile than the perf.data"
done
# gcov for gcc (the default for a gcc build), read back
"$SPGO" gen --binary br --perf-data spe.data -o br.gcov 2> /dev/null
"$SPGO" show br.gcov | grep -q '^format: gcov' || fail "no gcov profile from SPE"
gcc -O2 -g -fauto-profile=br.gcov -o br2 "$data/branchy.c" 2> gcc.err && [ ! -s gcc.err ] ||
  { cat gcc.err; fail "gcc does not take the gcov profile from SPE"; }
# a probe profile from SPE (clang's pseudo-probes) against its exact counts
if command -v clang-19 > /dev/null; then
  clang-19 -O2 -g -fpseudo-probe-for-profiling -o brp "$data/branchy.c"
  "$SPGO" emulate --spe -c 53 -o brp.data --ground-truth brp.gt -- ./brp 100000 > /dev/null 2>&1
  "$SPGO" gen --binary brp --perf-data brp.data -o brp.prof --format text 2> /dev/null
  "$SPGO" gen --binary brp --ground-truth brp.gt -o brpt.prof --format text 2> /dev/null
  grep -q CFGChecksum brp.prof || fail "no probe profile from SPE"
  s=$("$SPGO" overlap brpt.prof brp.prof | awk '/profile similarity/ { sub(/%/, "", $NF); print $NF }')
  awk -v s="$s" 'BEGIN { exit !(s >= 97) }' || fail "probe profile from SPE: similarity $s%"
fi
# without --spe the text is read as LBR: one entry gives no range
"$SPGO" gen --binary br --perf-script spe.txt -o lbr.tprof --format text 2> lbr.err || true
grep -q 'single entry.*give --spe' lbr.err || { cat lbr.err; fail "one-entry branch stacks read as LBR without a word"; }
s=$(similarity lbr.tprof 2> /dev/null || echo 0)
awk -v s="${s:-0}" 'BEGIN { exit !(s < 90) }' || fail "one-entry branch stacks read as LBR reach $s%"

# --- 4. bad input -------------------------------------------------------------
perf script -i spe.data -D > spe.D 2> /dev/null
aux=$(awk '/PERF_RECORD_AUXTRACE size/ && !n++ { print $2 }' spe.D)
size=$(stat -c %s spe.data)
head -c $((size / 2 + 3)) spe.data > cut.data
"$SPGO" gen --binary br --perf-data cut.data -o cut.prof --format text 2> cut.err ||
  { cat cut.err; fail "a cut capture is an error"; }
# (the offset named: where the record the cut runs through starts)
at=$(sed -nE 's/.*offset (0x[0-9a-f]+): 1 SPE buffers end inside a packet or a record.*/\1/p' cut.err)
[ -n "$at" ] && [ $((at)) -le $((size / 2 + 3)) ] && [ $((at)) -gt $((size / 2 - 64)) ] ||
  { cat cut.err; fail "no warning naming where the SPE buffer is cut"; }
# an unknown header byte (0x02) over the first PC packet's header
start=$(( $(printf '%d' "0x${aux#*x}") + 48 ))
cp spe.data bad.data
printf '\x02' | dd of=bad.data bs=1 seek=$start conv=notrunc status=none
"$SPGO" gen --binary br --perf-data bad.data -o bad.prof --format text 2> bad.err ||
  { cat bad.err; fail "an unknown packet is an error"; }
grep -Eq "offset 0x$(printf '%x' $start): [0-9]+ bytes of SPE data that start no known packet" bad.err ||
  { cat bad.err; fail "no warning naming the unknown packet's offset"; }
# exactly that record is lost (its payload bytes are skipped or taken for
# packets of a record without a PC, which is not handed out)
[ $(( $("$SPGO" script -i spe.data -F ip 2>/dev/null | wc -l) - $("$SPGO" script -i bad.data -F ip 2>/dev/null | wc -l) )) -eq 1 ] ||
  fail "an unknown packet lost more or less than its record"

# --- 5. an AArch64 program --------------------------------------------------------
if command -v aarch64-linux-gnu-gcc > /dev/null && command -v qemu-aarch64 > /dev/null &&
   [ -f /usr/aarch64-linux-gnu/lib/libc.so.6 ]; then
  aarch64-linux-gnu-gcc -O2 -g -o bra "$data/branchy.c"
  "$SPGO" emulate --spe-pbt -c 53 -o a64.data --ground-truth bra.gt -- ./bra 100000 > /dev/null 2>&1 ||
    fail "spgo emulate --spe of an AArch64 program"
  np=$(perf script -i a64.data --itrace=i1i -F ip 2> /dev/null | awk '$1 != "0"' | wc -l)
  ns=$("$SPGO" script -i a64.data -F ip 2> /dev/null | wc -l)
  [ "$ns" -gt 1000 ] && [ "$np" -eq "$ns" ] || fail "AArch64 SPE: perf has $np records, spgo $ns"
  "$SPGO" gen --binary bra --ground-truth bra.gt -o a64t.prof --format text 2> /dev/null
  "$SPGO" gen --binary bra --perf-data a64.data -o a64.prof --format text 2> /dev/null
  s=$("$SPGO" overlap a64t.prof a64.prof | awk '/profile similarity/ { sub(/%/, "", $NF); print $NF }')
  awk -v s="$s" 'BEGIN { exit !(s >= 97) }' || fail "AArch64 SPE: similarity $s% < 97%"
else
  echo "note: no aarch64 cross gcc or qemu-aarch64: the AArch64 part is skipped"
fi
echo ok
