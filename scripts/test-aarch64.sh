#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The core's tests on AArch64: cross-compiled in ./build-aarch64 (scripts/aarch64-cross.ini,
# Debian's cross compiler and arm64 libraries, no plugin) and run under qemu-user on one CPU of
# each kind Highway dispatches to: 128, 256 and 512-bit SVE (its SVE2_128, SVE_256, SVE2 and SVE
# targets) and a NEON-only Cortex-A72. Each SIMD test runs on every target the CPU supports, byte
# for byte against the scalar reference. Run by scripts/test.sh; installs what it needs (as root).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgtest-dev:arm64)
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
scripts/install-deps.sh "${packages[@]}"

if [[ ! -f build-aarch64/build.ninja ]]; then
  meson setup build-aarch64 --cross-file scripts/aarch64-cross.ini -Dplugin=disabled \
    -Dcuda=disabled -Dbench=disabled -Dtests=enabled -Dwerror=true
fi

# meson test runs test-core through the cross file's exe_wrapper (qemu-aarch64), on the CPU that
# QEMU_CPU names. Emulated, the suite takes 15-30 s on this machine's 2 cores (natively 5 s), so
# meson's 30-second limit is raised tenfold. The death test re-executes the test binary, which
# the kernel cannot run without qemu's binfmt handler, and sets an address-space limit on qemu's
# own address space rather than the guest's.
for cpu in max,sve-default-vector-length=16 max,sve-default-vector-length=32 \
  max,sve-default-vector-length=64 cortex-a72; do
  echo "test-core on AArch64 ($cpu)"
  QEMU_CPU=$cpu meson test -C build-aarch64 --print-errorlogs --timeout-multiplier 10 core \
    '--test-args=--gtest_filter=-RowPoolDeathTest.*'
done
