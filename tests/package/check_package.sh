#!/usr/bin/env bash
# Builds the Debian package of a build (CPack's DEB generator, as
# `make package` does) into WORK_DIR, checks what it holds and declares,
# then extracts it into a temporary root and checks that tree as an install
# prefix, building an outside project against it (tests/install/check_prefix.sh).
#   check_package.sh CPACK BUILD_DIR CMAKE CONSUMER_SRC WORK_DIR CXX GENERATOR VERSION MAN_PAGE(ON|OFF) [CXX_FLAGS]
set -euo pipefail
cpack=$1 build=$2 cmake=$3 consumer=$4 work=$5 cxx=$6 generator=$7 version=$8 man_page=$9 flags=${10:-}
rm -rf "$work"
mkdir -p "$work"
(cd "$build" && "$cpack" --config CPackConfig.cmake -G DEB -B "$work/package") >"$work/cpack.log" 2>&1 \
  || { cat "$work/cpack.log" >&2; exit 1; }
debs=("$work"/package/leasesim_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
  echo "expected one leasesim_*.deb, found: ${debs[*]}" >&2; exit 1
fi
deb=${debs[0]}
case "$(basename "$deb")" in
  "leasesim_${version}_$(dpkg --print-architecture).deb") ;;
  *) echo "unexpected package file name: $(basename "$deb")" >&2; exit 1 ;;
esac

dpkg-deb -c "$deb" | awk '{print $NF}' >"$work/contents.txt"
expected=(./usr/bin/leasesim ./usr/bin/leasesim-live-node
          ./usr/lib/libleasesim_base.a ./usr/lib/libleasesim_core.a ./usr/lib/libleasesim_etcd.a
          ./usr/include/leasesim/core/lease_node.h ./usr/include/leasesim/backends/etcd/etcd_store.h
          ./usr/lib/cmake/leasesim/leasesimConfig.cmake ./usr/lib/cmake/leasesim/leasesimConfigVersion.cmake
          ./usr/lib/cmake/leasesim/leasesimTargets.cmake ./usr/share/doc/leasesim/LICENSE)
if [ "$man_page" = ON ]; then expected+=(./usr/share/man/man1/leasesim.1); fi
for f in "${expected[@]}"; do
  grep -qxF "$f" "$work/contents.txt" || { echo "not in the package: $f" >&2; cat "$work/contents.txt" >&2; exit 1; }
done
# Nothing outside /usr (nothing of the build tree, no /usr/local).
if grep -v '^\./usr/' "$work/contents.txt" | grep -vxF './' | grep -q .; then
  echo "outside /usr in the package:" >&2; grep -v '^\./usr/' "$work/contents.txt" >&2; exit 1
fi
if grep -q '^\./usr/local/' "$work/contents.txt"; then echo "/usr/local in the package" >&2; exit 1; fi

# The control file: name, version, and the runtime libraries dpkg-shlibdeps
# found in the binaries, as Debian package names.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = leasesim ] || { echo "Package: $(field Package)" >&2; exit 1; }
[ "$(field Version)" = "$version" ] || { echo "Version: $(field Version), not $version" >&2; exit 1; }
depends=$(field Depends)
echo "Depends: $depends"
for dep in libc6 libstdc++6 libcurl4 libboost-context; do
  grep -q "\b$dep" <<<"$depends" || { echo "Depends lacks $dep: $depends" >&2; exit 1; }
done
recommends=$(field Recommends)
for dep in etcd-server nlohmann-json3-dev libcurl4-openssl-dev libcpp-httplib-dev; do
  grep -q "\b$dep\b" <<<"$recommends" || { echo "Recommends lacks $dep: $recommends" >&2; exit 1; }
done

dpkg-deb -x "$deb" "$work/root"
exec "$(dirname "$0")/../install/check_prefix.sh" "$work/root/usr" "$cmake" "$consumer" "$work" "$cxx" \
  "$generator" "$version" "$flags"
