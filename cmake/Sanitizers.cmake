# ASan + UBSan for the whole build when C3SIM_SANITIZE is on (CI runs the tests this way).
if(C3SIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
