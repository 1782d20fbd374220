#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs on the GPU machine over a copy of the tree with ./build (built here) carried along:
# the GPU tests, compute-sanitizer on a subset, and the benchmark. Logs go to $OUT (or ./out).
# The element, leaks, soak, pipeline and mainjob steps need GStreamer there: carry .gstrt as
# well, made here by scripts/bundle-gst-runtime.sh. The python step also needs .pygi, made here
# by scripts/bundle-python-gi.sh; the element step runs cudaconvert where .nvrtc is carried
# (scripts/bundle-nvrtc.sh; with .gstrt it fits the carry limit without x265 and its plugin).
#   scripts/gpu-check.sh [tests|sanitize|element|leaks|soak|bench|format-bench|shapes|pipeline|mainjob|python|two-gpus|cpu-bench]...
# (default: all but python, two-gpus, which needs a machine of two GPUs, and cpu-bench, which
# needs .cvrt from scripts/bundle-opencv-runtime.sh carried instead of .gstrt)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out}
mkdir -p "$out"
steps=("$@")
((${#steps[@]})) || steps=(tests sanitize element leaks soak bench format-bench shapes pipeline mainjob)
[[ -f .gstrt/env.sh ]] && source .gstrt/env.sh
export GST_PLUGIN_PATH=$PWD/build/plugin
# An NVRTC that GStreamer 1.22's cudaconvert can use (scripts/bundle-nvrtc.sh), where carried.
if [[ -f .nvrtc/nvrtc.tar.xz ]]; then
  nvrtc=$(mktemp -d)
  tar -C "$nvrtc" -xJf .nvrtc/nvrtc.tar.xz
  export GST_CUDA_NVRTC_LIBNAME=$nvrtc/libnvrtc.so.11.2
  export LD_LIBRARY_PATH=$nvrtc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
status=0
for step in "${steps[@]}"; do
  case $step in
    tests)
      ./build/tests/cuda/test-cuda-engine --gtest_brief=1 2>&1 | tee "$out/tests.txt" | tail -15
      ((PIPESTATUS[0] == 0)) || status=1
      ;;
    sanitize)
      # The small frames of every variant plus the engine: the large ones add time, not coverage.
      # The tools picked run at once, each over several processes (gtest shards): racecheck and
      # initcheck keep one core busy per process for minutes, and the machine has cores to spare.
      # SANITIZERS picks some of the tools (default: all four). On an H100 machine memcheck alone
      # takes under a minute and initcheck alone about four, and all four at once more than
      # seven: SANITIZERS=initcheck runs it apart.
      read -ra tools <<<"${SANITIZERS:-memcheck racecheck synccheck initcheck}"
      declare -A shards=([memcheck]=8 [racecheck]=6 [synccheck]=2 [initcheck]=8)
      declare -a pids=()
      filter='Small/*:Fusions/*small*:Sizes/ZeroCopy.*small:*EngineDepth*:*EngineOutOfPlace*:FrameEngine.*:DeviceEqualizer.*:Options/EveryOption.*small:*EngineHistory*:EngineDeviceHistory.*:*EngineMixedHistory*:Layouts/PackedEngine.*small:Layouts/PackedReports.*:PackedEngineConfig.*:Formats/DeepEngine.*small:Formats/DeepOutOfPlace.*:DeepSamples.*:ClaheDevice.*:ClaheHistory.*:Layouts/ClaheEngine.Small*GRAY8*'
      # racecheck looks at shared memory inside one kernel, so the kernels of every variant and
      # every pixel layout (with and without options, in chunks and pixel by pixel) on small
      # frames are all it needs; the engine's large frames would take it many minutes.
      kernels='Small/EveryVariant.BitExact*:Fusions/*small*:Sizes/ZeroCopy.*small:Options/EveryOption.*small:Layouts/PackedReports.*:*PackedEngine.OutOfPlace*small:PackedEngineConfig.*:Formats/DeepOutOfPlace.*:DeepSamples.MalformedWords*:DeepSamples.AnIdentity*:ClaheDevice.*'
      # initcheck: no kernel reads device memory that nothing wrote (the history, the bins).
      for tool in "${tools[@]}"; do
        case $tool in
          memcheck) f=$filter ;;
          racecheck) f=$kernels ;;
          synccheck) f="$kernels:*EngineDepth*depth2*:*EngineOutOfPlace*depth2:*EngineHistory*depth2:*EngineMixedHistory*depth2" ;;
          initcheck) f="$kernels:*EngineHistory*depth2:EngineDeviceHistory.*:*EngineMixedHistory*depth2:ClaheHistory.*" ;;
        esac
        for ((shard = 0; shard < shards[$tool]; ++shard)); do
          GTEST_TOTAL_SHARDS=${shards[$tool]} GTEST_SHARD_INDEX=$shard \
            compute-sanitizer --tool "$tool" --error-exitcode 3 \
            ./build/tests/cuda/test-cuda-engine --gtest_brief=1 --gtest_filter="$f" \
            >"$out/sanitize-$tool-$shard.txt" 2>&1 &
          pids+=("$tool:$!")
        done
      done
      declare -A failed=()
      for entry in "${pids[@]}"; do
        wait "${entry#*:}" || failed[${entry%%:*}]=1
      done
      for tool in "${tools[@]}"; do
        read -r passed errors summaries < <(cat "$out"/sanitize-$tool-*.txt | awk '
          /^\[  PASSED  \]/ { passed += $4 }
          # "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: N hazards displayed (N
          # errors, N warnings)".
          /ERROR SUMMARY/ { errors += $4; ++summaries }
          /RACECHECK SUMMARY/ { sub(/.*\(/, ""); errors += $1; ++summaries }
          END { print passed + 0, errors + 0, summaries + 0 }')
        echo "compute-sanitizer $tool: ${failed[$tool]:+FAILED, }$passed tests passed in $summaries of ${shards[$tool]} shards, ERROR SUMMARY: $errors errors"
        [[ -z ${failed[$tool]:-} ]] || status=1
      done
      ;;
    element)
      # The elements through GstHarness and a real pipeline, against the bundled GStreamer.
      for t in histeq-element cudahisteq-element element-options element-crop element-clahe element-packed-formats element-deep-formats output-queue frame-qos; do
        ./build/tests/element/test-$t --gtest_brief=1 2>&1 | tee "$out/$t.txt" | tail -4
        ((PIPESTATUS[0] == 0)) || status=1
      done
      compute-sanitizer --tool memcheck --error-exitcode 3 ./build/tests/element/test-cudahisteq-element \
        --gtest_brief=1 --gtest_filter='*NV12_385x289*:CudaHistEqElement.*:FramesInFlight.*:CudaMemoryHarness.*:*CudaMemoryFormats*NV12_642x362:*CudaMemoryFormats*P010*:*Nvh265decMain10*' >"$out/sanitize-element.txt" 2>&1
      rc=$?
      echo "compute-sanitizer memcheck (cudahisteq element): exit $rc; $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$out/sanitize-element.txt" | tr '\n' ' ')"
      ((rc == 0)) || status=1
      compute-sanitizer --tool memcheck --error-exitcode 3 ./build/tests/element/test-element-options \
        --gtest_brief=1 --gtest_filter='Options/EveryOption.*cudahisteq*Y444_67x33*:Elements/EveryElement.*/1:CudaMemoryOptions.*' >"$out/sanitize-options.txt" 2>&1
      rc=$?
      echo "compute-sanitizer memcheck (element options): exit $rc; $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$out/sanitize-options.txt" | tr '\n' ' ')"
      ((rc == 0)) || status=1
      gst-launch-1.0 -q videotestsrc is-live=true num-buffers=60 ! video/x-raw,format=NV12,width=1280,height=720,framerate=60/1 \
        ! cudahisteq depth=3 ! fakesink sync=true >"$out/live.txt" 2>&1
      echo "live pipeline through cudahisteq depth=3: exit $?"
      ;;
    leaks)
      # The element suites under GStreamer's leaks tracer (meson's `leaks` setup, by hand): an
      # object alive at gst_deinit() fails the step, listed by type. Warnings are not fatal here,
      # unlike in meson's setup: on the GPU machine nvcodec loads, and a warning of its own would
      # abort a suite and hide both its results and the tracer's report.
      for t in cudahisteq-element element-options element-crop; do
        GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7 \
          ./build/tests/element/test-$t --gtest_brief=1 >"$out/leaks-$t.txt" 2>&1
        rc=$?
        alive=$(grep -o 'object-alive, type-name=(string)[A-Za-z0-9_]*' "$out/leaks-$t.txt" |
          sed 's/.*(string)//' | sort | uniq -c | tr -s ' \n' ' ')
        echo "leaks tracer ($t): exit $rc; alive at the end: ${alive:-none}; $(grep -cE '(WARNING|CRITICAL) \*\*' "$out/leaks-$t.txt") GLib warnings; $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/leaks-$t.txt" | tr '\n' ' ')"
        ((rc == 0)) && [[ -z $alive ]] || status=1
      done
      ;;
    soak)
      # A million 1080p frames with smoothing and statistics on, in system memory (the pinned
      # allocator) and in CUDA memory: memory readings, frame counts, samples against histeq.
      for memory in system cuda; do
        flag=()
        [[ $memory == cuda ]] && flag=(--cuda-memory)
        ./build/tests/element/histeq-soak --frames "${SOAK_FRAMES:-1000000}" "${flag[@]}" \
          2>&1 | tee "$out/soak-$memory.txt" | tail -20
        ((PIPESTATUS[0] == 0)) || status=1
      done
      ;;
    bench)
      if [[ -x build/bench/histeq-bench ]]; then
        ./build/bench/histeq-bench ${BENCH_ARGS:-} --csv "$out/bench.csv" 2>&1 | tee "$out/bench.txt" | tail -80
        ((PIPESTATUS[0] == 0)) || status=1
      else
        echo "bench: build/bench/histeq-bench not built"
      fi
      ;;
    format-bench)
      # Packed YUV, packed RGB and deep luma beside their copy and PCIe floors, at 4K, in the
      # global mode and in CLAHE; then OpenCV's CPU CLAHE on the same 8-bit frame, all cores.
      ./build/bench/histeq-format-bench --save-frame "$out/gray8-4k.raw" 2>&1 |
        tee "$out/format-bench.txt"
      ((PIPESTATUS[0] == 0)) || status=1
      # The GRAY8 row of the CLAHE table: its device-resident microseconds.
      gpu_us=$(awk '/^CLAHE/ { clahe = 1 } clahe && /^GRAY8/ { print $4; exit }' "$out/format-bench.txt")
      python3 bench/opencv_clahe.py "$out/gray8-4k.raw" 3840x2160 ${gpu_us:+--gpu-us "$gpu_us"} 2>&1 |
        tee "$out/opencv-clahe.txt"
      rm -f "$out/gray8-4k.raw"
      ;;
    shapes)
      # Where the ring's time per frame goes: its chain in two stream shapes, depth 1..3.
      if [[ -x build/bench/histeq-ring-shapes ]]; then
        ./build/bench/histeq-ring-shapes 2>&1 | tee "$out/ring-shapes.txt"
        ((PIPESTATUS[0] == 0)) || status=1
      else
        echo "shapes: build/bench/histeq-ring-shapes not built"
      fi
      ;;
    mainjob)
      # The README's main job with cudahisteq. The bundle has no libav, so decodebin decodes
      # the sample with NVDEC (nvh264dec); the outputs come back in $out/main-job.
      HISTEQ_ELEMENT=cudahisteq pipelines/equalize-sample "$out/main-job" 2>&1 | tee "$out/main-job.txt"
      ((PIPESTATUS[0] == 0)) || status=1
      rm -f "$out/main-job/sample.mp4"
      ;;
    python)
      # The scripts' tests (serve's RTSP clients among them) with cudahisteq, in the machine's
      # Python 3.12 through the bindings of .pygi. Its python3 is not /usr/bin/python3, so the
      # scripts run as `python3 pipelines/NAME` (tests/python/support.py does).
      (
        export PYTHONPATH=$PWD/.pygi:$PWD/pipelines GI_TYPELIB_PATH=$PWD/.pygi/typelib
        export LD_LIBRARY_PATH=$PWD/.pygi/lib:$LD_LIBRARY_PATH HISTEQ_ELEMENT=cudahisteq
        export HISTEQ_SOURCE_ROOT=$PWD PYTHONDONTWRITEBYTECODE=1
        # The machine sets none, and GLib says so on stderr, which the scripts' tests keep empty.
        XDG_RUNTIME_DIR=$(mktemp -d)
        export XDG_RUNTIME_DIR
        cd tests/python && python3 -m unittest discover -v -p 'test_*.py'
      ) >"$out/python.txt" 2>&1
      rc=$?
      grep -E '^(Ran |OK|FAILED)|\.\.\. (ok|FAIL|ERROR|skipped)|frames of' "$out/python.txt"
      ((rc == 0)) || status=1
      ;;
    two-gpus)
      # Both GPUs at once: the two-GPU element tests, then two 4K pipelines against their floors.
      ./build/tests/element/test-cudahisteq-element --gtest_brief=1 \
        --gtest_filter='*OnTwoGpus*:*AnotherGpu*:*OnOneGpu*' 2>&1 | tee "$out/two-gpu-tests.txt" | tail -6
      ((PIPESTATUS[0] == 0)) || status=1
      ./build/bench/pipeline/histeq-two-gpu-bench 2>&1 | tee "$out/two-gpu-bench.txt" | grep -v '^  device'
      ((PIPESTATUS[0] == 0)) || status=1
      ;;
    cpu-bench)
      # The CPU core beside OpenCV on the GPU machine's host (bench/README.md has the method).
      LD_LIBRARY_PATH=$PWD/.cvrt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        ./build/bench/cpu/histeq-cpu-bench 2>&1 | tee "$out/cpu-bench.txt"
      ((PIPESTATUS[0] == 0)) || status=1
      ;;
    pipeline)
      # Three rounds of 2000 frames fit one call of the GPU machine; seven of 3000 do not.
      ./build/bench/pipeline/histeq-pipeline-bench --frames 2000 --rounds 3 ${PIPELINE_ARGS:-} 2>&1 | tee "$out/pipeline-bench.txt"
      ((PIPESTATUS[0] == 0)) || status=1
      ;;
  esac
done
exit $status
