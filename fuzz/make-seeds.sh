#!/bin/sh
# Seed corpora of the fuzz harnesses that are binary files, made from the
# project's own test programs with the tools at hand (gcc, clang-19, perf,
# llvm-profdata-19, spgo), into DIR/NAME/; text seeds are committed in
# fuzz/corpus/NAME.  Made once (DIR/.done); a tool that is missing only
# leaves its seeds out.  Usage: make-seeds.sh DIR [SPGO]
set -u
dir=$1; spgo=${2:-}
[ -f "$dir/.done-7" ] && exit 0 # bump when seeds are added or change
src=${SPGO_SRC:-$(dirname "$0")/..}
mkdir -p "$dir/elf" "$dir/debug_line" "$dir/perf_data" "$dir/perf_script" "$dir/profile" \
  "$dir/cfg" "$dir/ground_truth" "$dir/unsym" "$dir/dwo"
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
has() { command -v "$1" >/dev/null 2>&1; }
c=$src/tests/data/perf_prog.c
has gcc && gcc -O2 -g -o "$dir/elf/gcc-dwarf5" "$c" && gcc -O2 -gdwarf-4 -gz=zlib -o "$dir/elf/gcc-dwarf4-zlib" "$c"
if has clang-19; then
  clang-19 -O2 -g -fdebug-info-for-profiling -o "$dir/elf/clang" "$c"
  clang-19 -O2 -g -gz=zstd -fuse-ld=lld -o "$dir/elf/clang-zstd" "$c" 2>/dev/null
  clang-19 -O2 -g -fpseudo-probe-for-profiling -o "$dir/elf/clang-probe" "$src/tests/data/inline_demo.c"
  clang-19 -O2 -g -fbasic-block-address-map -o "$dir/elf/clang-bbmap" "$src/tests/data/switch_prog.c" 2>/dev/null
  # a relocatable object, as a kernel module is (laid out and relocated: src/binary/reloc.c)
  clang-19 -O2 -g -mcmodel=kernel -ffreestanding -c -o "$dir/elf/clang-rel-ko" "$src/tests/integration/lib/kmod.c"
fi
# Each ELF's .debug_line, behind the one byte that picks the comp_dir case.
# --dump-section, not -O binary: -O binary writes only sections that are
# loaded (SHF_ALLOC), which .debug_line is not, and so wrote no table at
# all.  It dumps the bytes as stored: decompress the copy first.
if has objcopy; then
  for e in "$dir"/elf/*; do
    rm -f "$tmp/line"
    objcopy --decompress-debug-sections "$e" "$tmp/plain" 2>/dev/null &&
      objcopy --dump-section .debug_line="$tmp/line" "$tmp/plain" "$tmp/rest" 2>/dev/null &&
      [ -s "$tmp/line" ] || continue
    { printf '\001'; cat "$tmp/line"; } > "$dir/debug_line/$(basename "$e")"
  done
fi
# Split DWARF: .dwo files of clang and gcc (DWARF 5 and the GNU DWARF 4
# form), and clang's packaged into a .dwp.
for cc in clang-19 gcc; do
  has $cc || continue
  for v in 5 4; do
    (cd "$tmp" && $cc -O2 -g -gsplit-dwarf -gdwarf-$v -c "$src/tests/data/inline_demo.c" -o split.o 2>/dev/null) &&
      cp "$tmp/split.dwo" "$dir/dwo/$cc-dwarf$v.dwo"
  done
done
if has llvm-dwp-19 && [ -f "$dir/dwo/clang-19-dwarf5.dwo" ]; then
  timeout 60 llvm-dwp-19 "$dir/dwo/clang-19-dwarf5.dwo" -o "$dir/dwo/clang-19-dwarf5.dwp" 2>/dev/null
fi
if has perf && [ -x "$dir/elf/gcc-dwarf5" ] && perf record -q -e cpu-clock -o "$tmp/probe.data" -- true 2>/dev/null; then
  perf record -q -e cpu-clock -c 200000 -o "$dir/perf_data/file" -- "$dir/elf/gcc-dwarf5" 3000 >/dev/null 2>&1
  perf record -q -e cpu-clock -c 200000 --call-graph fp -o - -- "$dir/elf/gcc-dwarf5" 3000 2>/dev/null > "$dir/perf_data/pipe"
  perf record -q -z -e cpu-clock -c 200000 -o "$dir/perf_data/zstd" -- "$dir/elf/gcc-dwarf5" 3000 >/dev/null 2>&1
  perf script -i "$dir/perf_data/file" -F ip,pid,tid --show-mmap-events > "$dir/perf_script/ip" 2>/dev/null
  perf script -i "$dir/perf_data/pipe" -F ip 2>/dev/null > "$dir/perf_script/stacks"
fi
cp "$src"/tests/data/*.cfg "$dir/cfg/" 2>/dev/null
for p in "$src"/fuzz/corpus/profile/*.txt; do
  b=$(basename "$p" .txt)
  has llvm-profdata-19 && llvm-profdata-19 merge --sample --extbinary -o "$dir/profile/$b.extbin" "$p" 2>/dev/null
  [ -n "$spgo" ] && "$spgo" merge --format gcov -o "$dir/profile/$b.gcov" "$p" 2>/dev/null
done
# Unsymbolized profiles in spgo's binary form, from the text seeds.
if [ -n "$spgo" ]; then
  for p in "$src"/fuzz/corpus/unsym/*.txt; do
    "$spgo" merge --format bin -o "$dir/unsym/$(basename "$p" .txt).bin" "$p" 2>/dev/null
  done
fi
# AArch64 code for the branch classifiers: the .text of cross-built programs.
mkdir -p "$dir/a64_classify"
if has clang-19 && has llvm-objcopy-19; then
  for v in "" "-mbranch-protection=standard" "-fpseudo-probe-for-profiling"; do
    clang-19 --target=aarch64-linux-gnu -O2 -c $v -o "$tmp/a64.o" "$src/tests/data/switch_prog.c" 2>/dev/null &&
      llvm-objcopy-19 -O binary --only-section=.text "$tmp/a64.o" "$dir/a64_classify/clang${v%%=*}" 2>/dev/null
  done
fi
# Arm SPE in the AUX area: an emulated capture (needs the QEMU plugin).
if [ -n "$spgo" ] && [ -x "$dir/elf/gcc-dwarf5" ] && has qemu-x86_64; then
  timeout 60 "$spgo" emulate --spe-pbt -c 211 -o "$dir/perf_data/spe" -- "$dir/elf/gcc-dwarf5" 20 >/dev/null 2>&1
fi
touch "$dir/.done-7"
