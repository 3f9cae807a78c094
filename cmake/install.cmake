# Install rules and the exported CMake package. A service embeds the core
# with the etcd backend:
#   find_package(leasesim 0.3 REQUIRED)
#   target_link_libraries(my_service PRIVATE leasesim::core leasesim::etcd)
# and a project with lease code of its own gets the whole leasesim command
# for it (docs/YOUR_PROTOCOL.md):
#   target_link_libraries(my_harness PRIVATE leasesim::harness)
# Installed: bin/leasesim and bin/leasesim-live-node, the static libraries
# (base, core and etcd with their headers under include/leasesim/, included
# as "core/lease_node.h"; the harness with harness/harness.h and
# harness/builtin_protocols.h; and the libraries the harness is made of,
# whose headers stay private), lib/cmake/leasesim/ and the licence.
include(CMakePackageConfigHelpers)

set(LEASESIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/leasesim)

install(TARGETS leasesim leasesim-live-node RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# What the harness is made of: linked into a user's harness binary, never
# included by it (so their headers are not installed).
set(LEASESIM_HARNESS_PARTS leasesim_cli leasesim_runner leasesim_fuzz leasesim_live leasesim_timing leasesim_compare
    leasesim_reports leasesim_checker leasesim_backends leasesim_sim leasesim_zoo
    leasesim_designs_common leasesim_design_kube_lease leasesim_design_etcd_election
    leasesim_design_redlock leasesim_design_zk_election)
install(TARGETS leasesim_base leasesim_core leasesim_etcd leasesim_harness leasesim_builtin_protocols
                ${LEASESIM_HARNESS_PARTS}
  EXPORT leasesimTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/leasesim)
foreach(folder base core backends/etcd)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/leasesim/${folder}
    FILES_MATCHING PATTERN "*.h" PATTERN "*_test*" EXCLUDE PATTERN testdata EXCLUDE)
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/harness/harness.h ${PROJECT_SOURCE_DIR}/harness/builtin_protocols.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/leasesim/harness)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/leasesim)

install(EXPORT leasesimTargets NAMESPACE leasesim:: DESTINATION ${LEASESIM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/leasesimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/leasesimConfig.cmake INSTALL_DESTINATION ${LEASESIM_CMAKE_DIR})
# 0.x: a minor version may change the API, so only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/leasesimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/leasesimConfig.cmake ${PROJECT_BINARY_DIR}/leasesimConfigVersion.cmake
  DESTINATION ${LEASESIM_CMAKE_DIR})
