#!/bin/sh
# Write the man page spgo(1) from the help texts of the built program:
# `spgo --help` for the synopsis and command list, `spgo COMMAND --help` for
# one section per command, so the page never drifts from the program.
# Usage: make-man.sh SPGO OUT
set -eu
spgo=$1; out=$2
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT INT TERM HUP
esc() { sed -e 's/\\/\\e/g' -e 's/^\([.'"'"']\)/\\\&\1/'; }
{
  printf '%s\n' '.TH SPGO 1 "" "spgo" "User Commands"'
  printf '%s\n' '.SH NAME'
  printf '%s\n' 'spgo \- sampling-based profile-guided optimization toolkit'
  printf '%s\n' '.SH SYNOPSIS'
  printf '%s\n' '.B spgo'
  printf '%s\n' '.I COMMAND'
  printf '%s\n' '[\fIARGS\fR...]'
  printf '%s\n' '.SH DESCRIPTION'
  printf '%s\n' 'spgo turns perf samples of an optimized binary into the sample profiles'
  printf '%s\n' 'that clang (\fB\-fprofile\-sample\-use\fR) and gcc (\fB\-fauto\-profile\fR)'
  printf '%s\n' 'read: AutoFDO line profiles, probe-based and context-sensitive (CSSPGO)'
  printf '%s\n' 'profiles, from LBR branch stacks or plain IP samples.'
  printf '%s\n' '.PP'
  printf '%s\n' '.nf'
  "$spgo" --help | esc
  printf '%s\n' '.fi'
  printf '%s\n' '.SH COMMANDS'
  for c in $("$spgo" --help | awk '/^commands:/ {on = 1; next} on && NF {print $1}'); do
    printf '%s\n' ".SS $c"
    printf '%s\n' '.nf'
    "$spgo" "$c" --help 2>&1 | esc
    printf '%s\n' '.fi'
  done
  printf '%s\n' '.SH ENVIRONMENT'
  printf '%s\n' '.TP'
  printf '%s\n' '.B SPGO_THREADS=1'
  printf '%s\n' 'run without helper threads'
  printf '%s\n' '.TP'
  printf '%s\n' '.B SPGO_DEBUG_ROOT'
  printf '%s\n' 'the global debug directory, where separate debug files are looked up by build-id and .gnu_debuglink (default /usr/lib/debug)'
  printf '%s\n' '.TP'
  printf '%s\n' '.B DEBUGINFOD_URLS'
  printf '%s\n' 'debuginfod servers asked by build-id for a separate debug file not found locally (elfutils client; DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT apply)'
  printf '%s\n' '.TP'
  printf '%s\n' '.B SPGO_EMULATE_PLUGIN'
  printf '%s\n' 'the QEMU plugin of spgo emulate (default: ../lib/spgo/spgo-emulate.so beside the program)'
  printf '%s\n' '.SH SEE ALSO'
  printf '%s\n' '.BR perf (1),'
  printf '%s\n' '.BR clang (1),'
  printf '%s\n' '.BR gcc (1),'
  printf '%s\n' '.BR llvm-profgen (1),'
  printf '%s\n' '.BR llvm-profdata (1)'
} > "$tmp"
mv "$tmp" "$out"
trap - EXIT INT TERM HUP
