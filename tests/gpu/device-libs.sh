#!/bin/sh
# Copy what bin/warpgrade and the Check test binaries need beyond a stock
# CUDA machine (libarchive, jansson, nettle, subunit) into DIR, with
# bubblewrap and its libraries (DIR/bwrap-deps) when this machine has
# it, for GPU hosts that have the CUDA Toolkit but not these packages.
# Run where warpgrade was built; use DIR with device-env.sh there.
set -eu
dir=${1:?usage: device-libs.sh DIR}
mkdir -p "$dir"
for lib in libarchive.so.13 libjansson.so.4 libnettle.so.8; do
	path=$(ldd bin/warpgrade | awk -v l="$lib" '$1 == l { print $3 }')
	[ -n "$path" ] && cp -L "$path" "$dir/"
done
if [ -x build/tests/check_exploits ]; then
	path=$(ldd build/tests/check_exploits |
	       awk '$1 == "libsubunit.so.0" { print $3 }')
	[ -n "$path" ] && cp -L "$path" "$dir/"
fi
if bwrap=$(command -v bwrap); then
	cp "$bwrap" "$dir/bwrap"
	mkdir -p "$dir/bwrap-deps"
	ldd "$bwrap" | awk '$3 ~ /^\// && $1 !~ /^(libc\.so|ld-linux)/ { print $3 }' |
	while read -r lib; do cp -L "$lib" "$dir/bwrap-deps/"; done
fi
ls "$dir" "$dir/bwrap-deps" 2>/dev/null
