# Zero-warning policy: every first-party target calls c3sim_set_warnings().
function(c3sim_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion -Werror=return-type)
  if(C3SIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
option(C3SIM_WERROR "Treat warnings as errors" OFF)
