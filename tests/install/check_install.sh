#!/usr/bin/env bash
# Installs the build into a fresh prefix and builds an outside project
# against it, as a service that embeds the core would (check_prefix.sh).
#   check_install.sh CMAKE BUILD_DIR CONSUMER_SRC WORK_DIR CXX GENERATOR VERSION [CXX_FLAGS]
set -euo pipefail
cmake=$1 build=$2 consumer=$3 work=$4 cxx=$5 generator=$6 version=$7 flags=${8:-}
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log"
exec "$(dirname "$0")/check_prefix.sh" "$prefix" "$cmake" "$consumer" "$work" "$cxx" "$generator" "$version" "$flags"
