# One library per layer (docs/architecture.md, Layers): c3sim_add_layer(<target> <name>) gives a layer target
# its public include root (the source tree when building, include/ once installed), its exported
# name c3sim::<name> with a matching ALIAS for in-tree users, the project's warnings, and a place
# in the c3simTargets export set that `find_package(c3sim)` loads.
function(c3sim_add_layer target name)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(c3sim::${name} ALIAS ${target})
  c3sim_set_warnings(${target})
  set_property(GLOBAL APPEND PROPERTY C3SIM_LAYER_TARGETS ${target})
endfunction()
