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
configure_file(cmake/revprof.pc.in ${CMAKE_CURRENT_BINARY_DIR}/revprof.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/revprof.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(DIRECTORY models/machines/ DESTINATION ${CMAKE_INSTALL_DATADIR}/revprof/machines)
