#!/usr/bin/env bash
# Checks an installed leasesim tree (a `cmake --install` prefix, or the /usr
# of the extracted Debian package) and builds an outside project against
# it, as a service that embeds the core would. Used by check_install.sh and
# tests/package/check_package.sh.
#   check_prefix.sh PREFIX CMAKE CONSUMER_SRC WORK_DIR CXX GENERATOR VERSION [CXX_FLAGS]
set -euo pipefail
prefix=$1 cmake=$2 consumer=$3 work=$4 cxx=$5 generator=$6 version=$7 flags=${8:-}
for f in bin/leasesim bin/leasesim-live-node include/leasesim/core/lease_node.h \
         include/leasesim/backends/etcd/etcd_store.h include/leasesim/base/units.h \
         lib/cmake/leasesim/leasesimConfig.cmake share/doc/leasesim/LICENSE; do
  if [ ! -e "$prefix/$f" ]; then echo "not installed: $f" >&2; exit 1; fi
done
# No test or simulation header leaks into the installed tree.
if find "$prefix/include" -name '*_test*' -o -path '*/sim/*' | grep -q .; then
  echo "installed a test or sim header:" >&2; find "$prefix/include" -name '*_test*' -o -path '*/sim/*' >&2; exit 1
fi
"$prefix/bin/leasesim" --version | grep -q "^leasesim $version" || { echo "bin/leasesim --version is not $version" >&2; exit 1; }
"$cmake" -S "$consumer" -B "$work/build" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$work/configure.log" \
  || { cat "$work/configure.log" >&2; exit 1; }
"$cmake" --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
output=$("$work/build/embed_leasesim")
echo "$output"
grep -q "timing: sound" <<<"$output"
grep -q "endpoints: 2" <<<"$output"
grep -q "leasesim $version" <<<"$output"
