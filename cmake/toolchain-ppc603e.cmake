# Debian's Linux PowerPC cross compiler used freestanding for the 603e:
# no OS, no libc, our own crt0 and linker script (sw/firmware/common).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR powerpc)
set(CMAKE_C_COMPILER powerpc-linux-gnu-gcc)
set(CMAKE_ASM_COMPILER powerpc-linux-gnu-gcc)
set(CMAKE_OBJCOPY powerpc-linux-gnu-objcopy)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=603e -mbig-endian -msoft-float -ffreestanding -fno-builtin -nostdlib -fno-pic -mno-sdata -G0 -Wall -Wextra")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=603e -mbig-endian")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostdlib -nostartfiles -static -Wl,--build-id=none")
