# CTest driver (cmake -P): install the c3sim build tree into a scratch prefix, configure and build
# examples/find_package against it with find_package(c3sim), and run the consumer. Any failing
# step fails the test with that step's output.
foreach(var C3SIM_BUILD_DIR CONSUMER_SOURCE SCRATCH CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${SCRATCH})

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install ${C3SIM_BUILD_DIR} --prefix ${SCRATCH}/prefix)
set(configure ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${SCRATCH}/build -DCMAKE_PREFIX_PATH=${SCRATCH}/prefix
              -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
if(LAUNCHER)
  list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
if(SANITIZE)
  # The installed libraries were built with ASan/UBSan: the consumer must link their runtimes.
  list(APPEND configure "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined")
endif()
step("configure with find_package(c3sim)" ${configure})
# The package config's version is the release (the VERSION file, through project()).
if(DEFINED EXPECTED_VERSION AND NOT step_output MATCHES "c3sim ${EXPECTED_VERSION} from")
  message(FATAL_ERROR "find_package(c3sim) did not report version ${EXPECTED_VERSION}:\n${step_output}")
endif()
step("build the consumer" ${CMAKE_COMMAND} --build ${SCRATCH}/build)
step("run the consumer" ${SCRATCH}/build/c3sim_consumer)
message(STATUS "${step_output}")
