# M2VP_FUZZ=ON (with clang): libFuzzer targets for every parser of outside
# input (fuzz/). Everything in this build is instrumented for coverage and
# runs under AddressSanitizer + UndefinedBehaviorSanitizer; build only the
# `fuzzers` target in its own folder (./m2vp test --fuzz uses build-fuzz).
option(M2VP_FUZZ "build the libFuzzer targets in fuzz/ (needs clang)" OFF)
if(M2VP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "M2VP_FUZZ needs clang (libFuzzer): configure with CC=clang CXX=clang++ in a fresh folder")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
