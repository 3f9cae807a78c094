# `make package`: what `make install` installs (cmake/install.cmake), as one
# Debian package, leasesim_VERSION_ARCH.deb, under /usr (CPack's DEB
# generator; docs/INSTALL.md). tests/package checks it.
#
# Depends: the shared libraries the two binaries link (libc6, libstdc++6,
# libboost-context, libcurl4, libabsl, ...), computed by dpkg-shlibdeps
# (dpkg-dev) from the binaries themselves, so the list follows the build.
# Recommends (apt installs them by default): what `leasesim live` runs
# (etcd, openssl for --etcd-secure) and what a project building against
# the static libraries and headers needs, the packages leasesimConfig.cmake
# finds: nlohmann/json, libcurl's and cpp-httplib's development files and
# pkg-config.
set(CPACK_PACKAGE_NAME leasesim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "the leasesim authors")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The binaries without their debug information (117 MB -> a few; static
# libraries keep theirs: a linker needs their symbol tables).
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
  "etcd-server, openssl, nlohmann-json3-dev, libcurl4-openssl-dev | libcurl-dev, libcpp-httplib-dev, pkg-config")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "${PROJECT_DESCRIPTION}.\n\
The leasesim command runs the lease protocol in a simulated world with\n\
drifting clocks, a lossy network, crashes and pauses, and checks every\n\
history for dual writers, stale-token writes and duplicate settlements;\n\
`leasesim live` runs it against a real etcd cluster. The package also\n\
ships the protocol's static libraries (leasesim::core, leasesim::etcd),\n\
their headers and the CMake package (find_package(leasesim)).")
include(CPack)
