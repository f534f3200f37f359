#!/bin/sh
# Copy the shared libraries bin/warpgrade needs beyond a stock CUDA
# machine (libarchive, jansson) into DIR, for GPU hosts that have the CUDA
# Toolkit but not these packages.  Run where warpgrade was built.
set -eu
dir=${1:?usage: device-libs.sh DIR}
mkdir -p "$dir"
for lib in libarchive.so.13 libjansson.so.4 libnettle.so.8; do
	path=$(ldd bin/warpgrade | awk -v l="$lib" '$1 == l { print $3 }')
	[ -n "$path" ] && cp -L "$path" "$dir/"
done
ls "$dir"
