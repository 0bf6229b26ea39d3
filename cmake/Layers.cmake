# One library per layer (docs/architecture.md, Layers): c3sim_add_layer(<target> <name>) gives a layer target
# its public include root (the source tree when building, include/ once installed), its exported
# name c3sim::<name> with a matching ALIAS for in-tree users, the project's warnings, and a place
# in the c3simTargets export set that `find_package(c3sim)` loads.
function(c3sim_add_layer target name)
  c3sim_unity_build(${target})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(c3sim::${name} ALIAS ${target})
  c3sim_set_warnings(${target})
  set_property(GLOBAL APPEND PROPERTY C3SIM_LAYER_TARGETS ${target})
endfunction()

# Unity build (C3SIM_UNITY_BUILD): a target's sources compile in batches of
# CMAKE_UNITY_BUILD_BATCH_SIZE (CMake's default 8), one translation unit per batch, so the heavy
# headers (CLI11, which defines its validators and formatters in every file that includes it,
# nlohmann/json, yaml-cpp, fmt) are parsed and their inline code optimized once per batch instead of
# once per file: a from-scratch build of the c3sim command takes about half the CPU time. Names with
# internal linkage therefore must be unique within a layer. clang-tidy needs one compile command per
# file, so .ci/tidy configures its own build directory with the option off.
function(c3sim_unity_build target)
  if(C3SIM_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON)
  endif()
endfunction()
