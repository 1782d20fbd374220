#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds GStreamer's Python bindings for the GPU machine's Python 3.12 (it has numpy and
# matplotlib but no PyGObject, and nothing can be installed there): Debian's PyGObject 3.42.2
# and gst-python 1.22.0 overrides, compiled here against a Python 3.12's headers, with the
# typelibs and the two libraries the bundle of scripts/bundle-gst-runtime.sh lacks. Carry the
# folder with .gstrt and, there:
#   export PYTHONPATH=$PWD/.pygi:$PWD/pipelines GI_TYPELIB_PATH=$PWD/.pygi/typelib
#   export LD_LIBRARY_PATH=$PWD/.pygi/lib:$LD_LIBRARY_PATH
# Run the scripts as `python3 pipelines/NAME`: their #!/usr/bin/python3 there is a Python
# without numpy; a wrapper at /usr/bin/python3 that execs `python3` loops there (the image's
# python3 links to it). `scripts/gpu-check.sh python` runs the scripts' tests through it.
#   scripts/bundle-python-gi.sh [PYTHON3.12] [OUTDIR]     (default pyenv's 3.12, .pygi)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-$(PYENV_VERSION=3.12.1 pyenv which python3.12)}
out=$(realpath -m "${2:-.pygi}")
include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
tag=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Sources (deb-src for bookworm) and the headers the build needs.
if ! grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/; then
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    >/etc/apt/sources.list.d/histeq-src.sources
  apt-get update -qq
fi
apt-get install -y -qq libgirepository1.0-dev libffi-dev libgstreamer1.0-dev >/dev/null
(cd "$work" && apt-get source -qq --download-only pygobject=3.42.2-3 gst-python1.0=1.22.0-2 &&
  tar xf pygobject_3.42.2.orig.tar.xz && tar xf gst-python1.0_1.22.0.orig.tar.xz) 2>/dev/null

# PyGObject's extension: its meson needs distutils, which Python 3.12 no longer has, so the
# sources its gi/meson.build lists are compiled directly, with the config.h meson would write.
pygi=$work/pygobject-3.42.2
printf '#define PYGOBJECT_MAJOR_VERSION 3\n#define PYGOBJECT_MINOR_VERSION 42\n#define PYGOBJECT_MICRO_VERSION 2\n' \
  >"$pygi/config.h"
sources=$(sed -n '/^sources = \[/,/\]/p' "$pygi/gi/meson.build" | grep -o "'[^']*\.c'" | tr -d "'")
(cd "$pygi" && gcc -shared -fPIC -O2 -fvisibility=hidden -DPY_SSIZE_T_CLEAN -DHAVE_CONFIG_H \
  -I. -Igi -I"$include" $(pkg-config --cflags gobject-introspection-1.0 libffi gio-2.0) \
  $(printf 'gi/%s ' $sources) -o "gi/_gi$tag" \
  $(pkg-config --libs gobject-introspection-1.0 libffi gio-2.0))

# gst-python's overrides (Gst.Fraction, buffer mapping helpers and the like).
gstpy=$work/gst-python-1.22.0
printf '#define PACKAGE "gst-python"\n#define VERSION "1.22.0"\n#define GST_PACKAGE_NAME "GStreamer Python"\n#define PACKAGE_NAME "GStreamer Python"\n#define GST_API_VERSION "1.0"\n' \
  >"$gstpy/config.h"
gcc -shared -fPIC -O2 -DHAVE_CONFIG_H -I"$gstpy" -I"$pygi/gi" -I"$include" \
  $(pkg-config --cflags gstreamer-1.0) "$gstpy/gi/overrides/gstmodule.c" \
  -o "$gstpy/gi/overrides/_gi_gst$tag" $(pkg-config --libs gstreamer-1.0)

rm -rf "$out"
mkdir -p "$out/typelib" "$out/lib"
cp -r "$pygi/gi" "$out/"
cp "$gstpy"/gi/overrides/*.py "$gstpy/gi/overrides/_gi_gst$tag" "$out/gi/overrides/"
find "$out/gi" \( -name '*.c' -o -name '*.h' -o -name meson.build \) -delete
typelibs=/usr/lib/x86_64-linux-gnu/girepository-1.0
cp "$typelibs"/{GLib-2.0,GObject-2.0,Gio-2.0,GModule-2.0}.typelib "$typelibs"/Gst*.typelib \
  "$out/typelib/"
cp -L /usr/lib/x86_64-linux-gnu/libgirepository-1.0.so.1 /usr/lib/x86_64-linux-gnu/libffi.so.8 \
  "$out/lib/"
echo "bundle-python-gi: $out ready for $("$python" --version) ($(du -sh "$out" | cut -f1))"
