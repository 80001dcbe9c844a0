// Where the simulator finds what the build produced, without absolute paths:
// firmware lives next to the executable (bin/../firmware) unless the
// environment variable M2VP_FIRMWARE_DIR says otherwise.
#pragma once

#include <string>

namespace m2 {

std::string firmware_dir();

// Where the build puts the shared libraries outside programs load (the
// project's libmpich.so.12): bin/../lib, or M2VP_LIB_DIR.
std::string library_dir();

// A firmware named in a config: a bare name ("hello") is looked up in
// firmware_dir() as <name>.elf; anything with a '/' or ending in .elf is a
// path relative to the config file's folder. The file need not exist (the
// ELF loader reports that).
std::string resolve_firmware(const std::string& value, const std::string& config_dir);

// When the firmware `value` names does not exist: what would help, to append
// to the loader's error (the firmware that is there and the closest name, or
// where a relative path is looked for); "" when it exists.
std::string missing_firmware_hint(const std::string& value, const std::string& config_dir);

}  // namespace m2
