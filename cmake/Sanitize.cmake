# M2VP_SANITIZE=ON: AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer on every native target (models, platform, host
# software, tests, benchmarks). The PowerPC firmware is cross-compiled in its
# own sub-project and is not affected. Use a separate build folder
# (./m2vp test --sanitize uses build-sanitize). Runtime options are compiled
# into every executable (sanitizer_defaults.c), so ctest, m2vp-sim and the
# fuzzers behave the same without environment variables; docs/sanitizers.md
# says why each one is set.
option(M2VP_SANITIZE "build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
if(M2VP_SANITIZE)
  # -fno-sanitize-recover: a UBSan finding fails the run instead of scrolling by.
  # -fno-omit-frame-pointer: readable stacks in reports.
  # float-cast-overflow: GCC leaves it out of "undefined" (clang's fuzz build
  # has it); a double beyond an integer type's range converted to it is
  # undefined behaviour (found by fuzz_config in the parameter printer).
  set(M2_SANITIZE_KINDS -fsanitize=address,undefined,float-cast-overflow)
  set(M2_SANITIZE_FLAGS ${M2_SANITIZE_KINDS} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${M2_SANITIZE_FLAGS})
  # core/leak_roots.cpp registers coroutine stacks with LeakSanitizer.
  add_compile_definitions(M2VP_SANITIZED)
  add_link_options(${M2_SANITIZE_KINDS})
  add_library(m2_sanitizer_defaults OBJECT ${CMAKE_SOURCE_DIR}/cmake/sanitize/sanitizer_defaults.c)
  # Linked into every executable defined after this point.
  link_libraries(m2_sanitizer_defaults)
endif()

# Outside programs and what they load are not ours to instrument: an
# uninstrumented program (Debian's NPmpich2) cannot load a shared library
# built with ASan (its runtime must come first in the process), so the
# platform's libmpich.so.12 and the test's own outside MPI program are built
# as a user would build them, and so is the bench's event counter, preloaded
# in front of the simulator's libraries. The simulator side of the programs'
# calls (sw/host/exec/mpi_calls.cpp, sw/host/mpi) stays instrumented.
function(m2_not_sanitized target)
  if(NOT M2VP_SANITIZE)
    return()
  endif()
  foreach(prop COMPILE_OPTIONS LINK_OPTIONS)
    get_target_property(v ${target} ${prop})
    if(v)
      list(REMOVE_ITEM v ${M2_SANITIZE_FLAGS})
      set_property(TARGET ${target} PROPERTY ${prop} "${v}")
    endif()
  endforeach()
  get_target_property(libs ${target} LINK_LIBRARIES)
  if(libs)
    list(REMOVE_ITEM libs m2_sanitizer_defaults)
    set_property(TARGET ${target} PROPERTY LINK_LIBRARIES "${libs}")
  endif()
endfunction()
