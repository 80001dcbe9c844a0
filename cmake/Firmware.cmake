# Cross-compiles sw/firmware (PowerPC 603e, freestanding) as an external
# sub-project with its own toolchain file; ninja inside it keeps the build
# incremental. The ELF files land in ${M2VP_FIRMWARE_DIR}.
include(ExternalProject)
find_program(PPC_GCC powerpc-linux-gnu-gcc)
if(NOT PPC_GCC)
  message(FATAL_ERROR "powerpc-linux-gnu-gcc not found: install Debian's gcc-powerpc-linux-gnu (./m2vp does this for you)")
endif()
ExternalProject_Add(firmware
  SOURCE_DIR ${CMAKE_SOURCE_DIR}/sw/firmware
  BINARY_DIR ${CMAKE_BINARY_DIR}/sw-firmware
  CMAKE_ARGS
    -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/cmake/toolchain-ppc603e.cmake
    -DCMAKE_BUILD_TYPE=Release
    -DM2VP_IP_DIR=${CMAKE_SOURCE_DIR}/ip
    -DM2VP_FIRMWARE_OUT=${M2VP_FIRMWARE_DIR}
  CMAKE_GENERATOR ${CMAKE_GENERATOR}
  BUILD_ALWAYS ON
  INSTALL_COMMAND ""
  USES_TERMINAL_BUILD ON)
