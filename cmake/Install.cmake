# `cmake --install` lays out the layer libraries, their headers and a package config, so that a
# project can `find_package(c3sim)` and link c3sim::core (or one layer, c3sim::engine, ...).
include(CMakePackageConfigHelpers)
get_property(c3sim_layers GLOBAL PROPERTY C3SIM_LAYER_TARGETS)
install(TARGETS ${c3sim_layers} c3sim_core EXPORT c3simTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Headers keep their repository paths (#include "models/run/c3_simulator.h").
foreach(dir sim/base sim/engine hardware workloads models)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${dir}
          FILES_MATCHING PATTERN "*.h" PATTERN "hip" EXCLUDE PATTERN "presets" EXCLUDE)
endforeach()
if(C3SIM_WITH_SWEEP)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/sim/sweep/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sim/sweep
          FILES_MATCHING PATTERN "*.h")
endif()
if(C3SIM_WITH_REPORT)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/sim/report/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sim/report
          FILES_MATCHING PATTERN "*.h" PATTERN "web" EXCLUDE)
endif()
set(c3sim_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/c3sim)
install(EXPORT c3simTargets NAMESPACE c3sim:: DESTINATION ${c3sim_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/c3sim-config.cmake.in
                              ${PROJECT_BINARY_DIR}/c3sim-config.cmake INSTALL_DESTINATION ${c3sim_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/c3sim-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/c3sim-config.cmake ${PROJECT_BINARY_DIR}/c3sim-config-version.cmake
        DESTINATION ${c3sim_cmake_dir})
