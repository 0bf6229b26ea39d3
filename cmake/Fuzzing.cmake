# libFuzzer builds (C3SIM_BUILD_FUZZERS=ON, clang only). Every first-party object gets coverage
# instrumentation plus ASan/UBSan (-fsanitize=fuzzer-no-link,...) so the fuzzer sees edges inside the
# libraries; the fuzz executables themselves add -fsanitize=fuzzer (tests/fuzz/CMakeLists.txt), which
# links libFuzzer's main(). The tests built in the same tree run under ASan + UBSan too (the coverage
# hooks resolve to the sanitizer runtime's no-op defaults there), so one tree serves CI's sanitize and
# fuzz stages (.ci/lib.sh, ci_configure_sanitizer_tree, configures it with clang).
set(C3SIM_FUZZING_ENABLED OFF)
if(C3SIM_BUILD_FUZZERS)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(C3SIM_FUZZING_ENABLED ON)
    set(C3SIM_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                         -fno-omit-frame-pointer -gline-tables-only)
    add_compile_options(${C3SIM_FUZZ_FLAGS})
    add_link_options(-fsanitize=address,undefined)
    add_compile_definitions(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
  else()
    message(WARNING "C3SIM_BUILD_FUZZERS needs clang (CC=clang CXX=clang++); compiler is "
                    "${CMAKE_CXX_COMPILER_ID}: fuzz targets are skipped")
  endif()
  if(C3SIM_SANITIZE)
    message(FATAL_ERROR "C3SIM_BUILD_FUZZERS already enables ASan/UBSan; do not combine it with C3SIM_SANITIZE")
  endif()
endif()
