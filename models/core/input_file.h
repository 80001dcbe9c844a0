// Reading a file the user named (config, firmware) without hanging or
// exhausting memory: only regular files are read (a named pipe would block in
// open(), /dev/zero never ends), and only up to a size limit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace m2 {

// The whole file. Throws ConfigError "<path>: cannot open <what>: <why>" when
// it cannot be opened, is not a regular file, or is larger than `max_bytes`.
std::vector<uint8_t> read_input_file(const std::string& path, const std::string& what, uint64_t max_bytes);

}  // namespace m2
