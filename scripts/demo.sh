#!/usr/bin/env bash
# make demo: the main job, end to end, on the bundled example.
set -euo pipefail
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
spgo="$src/$build/spgo"
echo "demo: not yet written (see issue 7); spgo is built at $spgo"
