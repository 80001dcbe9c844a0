# How a firmware for the NI's (or the switch box's) PowerPC 603e is built:
# compile and link flags, the start-up code and fwcommon (common/), and
# m2_firmware(). Included by sw/firmware/CMakeLists.txt and by firmware
# projects outside the repository (`./m2vp firmware new`, see
# sw/firmware/README.md). The including project is configured with
# cmake/toolchain-ppc603e.cmake and declares the languages C and ASM.
include_guard(GLOBAL)

set(M2FW_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}")
get_filename_component(M2FW_REPO_DIR "${M2FW_SOURCE_DIR}/../.." ABSOLUTE)
set(M2VP_IP_DIR "${M2FW_REPO_DIR}/ip" CACHE PATH
    "Register-map headers shared with the simulator (the repository's ip/)")
set(M2VP_FIRMWARE_OUT "${CMAKE_BINARY_DIR}/out" CACHE PATH
    "Directory receiving the firmware ELF files")
if(NOT EXISTS "${M2VP_IP_DIR}/ni_memory_map.h")
  message(FATAL_ERROR "M2VP_IP_DIR='${M2VP_IP_DIR}' has no ni_memory_map.h")
endif()
# A host compiler would build objects the simulator cannot run; say so now
# rather than at the first unknown instruction.
if(NOT CMAKE_C_COMPILER MATCHES "powerpc")
  message(FATAL_ERROR "the firmware needs the PowerPC cross compiler, not '${CMAKE_C_COMPILER}': configure with "
                      "-DCMAKE_TOOLCHAIN_FILE=${M2FW_REPO_DIR}/cmake/toolchain-ppc603e.cmake "
                      "(`./m2vp firmware build` does)")
endif()

# Same code in every build type: tests and benchmarks depend on it.
foreach(lang C ASM)
  foreach(cfg DEBUG RELEASE RELWITHDEBINFO MINSIZEREL)
    set(CMAKE_${lang}_FLAGS_${cfg} "")
  endforeach()
endforeach()
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS ON)
# -O2 is what the calibrated firmware runs; a project debugging its own code
# may take -Og (every local visible in GDB; slower code, other timings).
set(M2FW_OPTIMIZE "-O2" CACHE STRING "Optimisation flag of the firmware (-O2; -Og or -O0 to debug)")
if(NOT M2FW_OPTIMIZE MATCHES "^-O[0-3sg]?$")
  message(FATAL_ERROR "M2FW_OPTIMIZE='${M2FW_OPTIMIZE}': expected one of -O0 -O1 -O2 -O3 -Os -Og")
endif()
add_compile_options(${M2FW_OPTIMIZE} -g
  $<$<COMPILE_LANGUAGE:C>:-ffunction-sections>
  $<$<COMPILE_LANGUAGE:C>:-fdata-sections>)
# Debian's gcc defaults to PIE; the ELF loader wants a plain ET_EXEC.
add_link_options(-no-pie -Wl,--gc-sections -Wl,-z,max-page-size=0x1000)

set(M2FW_LINKER_SCRIPT ${M2FW_SOURCE_DIR}/common/ni.ld)

# m2_firmware(<name> <sources>... [LINKER_SCRIPT <file>] [SDRAM_END <addr>] [BARE])
# Links ${M2VP_FIRMWARE_OUT}/<name>.elf from the sources, crt0, the vectors
# and fwcommon. BARE: only the given sources (they bring their own start-up).
# SDRAM_END: end of the SDRAM for ni.ld's stack (default the NI's 64 MB).
function(m2_firmware name)
  cmake_parse_arguments(PARSE_ARGV 1 FW "BARE" "LINKER_SCRIPT;SDRAM_END" "")
  if(NOT FW_LINKER_SCRIPT)
    set(FW_LINKER_SCRIPT ${M2FW_LINKER_SCRIPT})
  endif()
  get_filename_component(script ${FW_LINKER_SCRIPT} ABSOLUTE)
  add_executable(${name} ${FW_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES
    SUFFIX ".elf"
    RUNTIME_OUTPUT_DIRECTORY ${M2VP_FIRMWARE_OUT}
    LINK_DEPENDS ${script})
  if(FW_SDRAM_END)
    # Before the script: ni.ld only takes a value defined ahead of it.
    target_link_options(${name} PRIVATE -Wl,--defsym,__sdram_end=${FW_SDRAM_END})
  endif()
  target_link_options(${name} PRIVATE
    -Wl,-T,${script} -Wl,-Map,${CMAKE_CURRENT_BINARY_DIR}/${name}.map)
  if(NOT FW_BARE)
    target_link_libraries(${name} PRIVATE fwstart fwcommon)
  endif()
  # After our objects: 64-bit division helpers (__udivdi3, __umoddi3).
  target_link_libraries(${name} PRIVATE gcc)
endfunction()

# fwstart and fwcommon; outside the repository their objects go to the
# project's build folder.
add_subdirectory(${M2FW_SOURCE_DIR}/common ${CMAKE_BINARY_DIR}/fwcommon)
