// See input_file.h.
#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/params.h"

namespace m2 {
namespace {

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::vector<uint8_t> read_input_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
  const std::string prefix = path + ": cannot open " + what + ": ";
  // O_NONBLOCK: opening a named pipe must not wait for a writer; the type
  // check below then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw ConfigError(prefix + std::strerror(errno));
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw ConfigError(prefix + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw ConfigError(prefix + std::strerror(EISDIR));
  if (!S_ISREG(st.st_mode)) throw ConfigError(prefix + "it is " + file_kind(st.st_mode) + ", expected a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    throw ConfigError(prefix + "it is " + std::to_string(st.st_size) + " bytes, more than the limit of " +
                      std::to_string(max_bytes) + " bytes");
  std::vector<uint8_t> buf(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < buf.size()) {
    const ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
    if (n == 0) break;  // shrank while reading
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ConfigError(prefix + std::strerror(errno));
    }
    got += static_cast<size_t>(n);
  }
  buf.resize(got);
  return buf;
}

}  // namespace m2
