# Installation: libraries, headers, pkg-config file and CMake package config.
include(CMakePackageConfigHelpers)
install(TARGETS revprof_model EXPORT revprofTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/revprof)
install(EXPORT revprofTargets NAMESPACE revprof::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/revprof)
configure_package_config_file(cmake/revprofConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/revprofConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/revprof)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/revprofConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/revprofConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/revprofConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/revprof)
# The .pc files locate the prefix from their own folder, so they stay right
# under `cmake --install --prefix DIR` too.
file(RELATIVE_PATH RP_PC_UP /x/${CMAKE_INSTALL_LIBDIR}/pkgconfig /x)
configure_file(cmake/revprof.pc.in ${CMAKE_CURRENT_BINARY_DIR}/revprof.pc @ONLY)
configure_file(cmake/revprof-model.pc.in ${CMAKE_CURRENT_BINARY_DIR}/revprof-model.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/revprof.pc
  ${CMAKE_CURRENT_BINARY_DIR}/revprof-model.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(DIRECTORY models/machines/ DESTINATION ${CMAKE_INSTALL_DATADIR}/revprof/machines)
