#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fails, listing the files, when any C++/CUDA source differs from the root .clang-format style.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(find core cuda plugin tests bench fuzz \
    -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' | sort)
unformatted=()
for f in "${sources[@]}"; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if ((${#unformatted[@]})); then
  printf 'not clang-formatted (run clang-format -i on them):\n'
  printf '  %s\n' "${unformatted[@]}"
  exit 1
fi
echo "${#sources[@]} files clang-formatted"
