#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fails, listing the files, when any C++/CUDA source differs from the root .clang-format style.
# One clang-format process checks every file: one process per file takes most of a CI test timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(find core cuda plugin tests bench fuzz \
    -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' | sort)
if ! report=$(clang-format --dry-run -Werror "${sources[@]}" 2>&1); then
  unformatted=$(grep -oE '^[^: ]+:[0-9]+:[0-9]+: error' <<<"$report" | cut -d: -f1 | sort -u || true)
  if [[ -z "$unformatted" ]]; then
    # clang-format failed before judging any file's style (an unreadable file, say): say why.
    printf 'clang-format failed:\n%s\n' "$report"
    exit 1
  fi
  printf 'not clang-formatted (run clang-format -i on them):\n'
  sed 's/^/  /' <<<"$unformatted"
  exit 1
fi
echo "${#sources[@]} files clang-formatted"
