# Helpers for the build-time scripts that compile text files into the library as raw string
# literals (hardware/embed_presets.cmake, workloads/embed_paper_values.cmake); included with
# include() from a `cmake -P` script.

# Sets `out_var` to the C++ raw string literal R"c3sim_yaml(<file's text>)c3sim_yaml"; a file that
# contains the closing delimiter is a build error naming it.
function(c3sim_raw_string_literal out_var file)
  set(delim "c3sim_yaml")
  file(READ "${file}" text)
  string(FIND "${text}" ")${delim}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${file} contains the raw-string delimiter )${delim}\"")
  endif()
  set(${out_var} "R\"${delim}(${text})${delim}\"" PARENT_SCOPE)
endfunction()

# Writes `text` to `path` only when it differs, so an unrelated reconfigure does not rebuild the
# targets that compile the generated file.
function(c3sim_write_if_changed path text)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${text}")
endfunction()
