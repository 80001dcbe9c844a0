#include "core/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/params.h"

namespace fs = std::filesystem;

namespace m2 {
namespace {

constexpr size_t kBufferBytes = 64 * 1024;
constexpr int kCreateFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
constexpr mode_t kFileMode = 0666;  // less the umask, as any new file

[[noreturn]] void cannot_write(const std::string& path, const std::string& what, int err) {
  throw ConfigError(path + ": cannot write " + what + ": " + std::strerror(err));
}

}  // namespace

FdOutputStream::Buffer::Buffer(int fd) : m_fd(fd), m_buf(kBufferBytes) {
  setp(m_buf.data(), m_buf.data() + m_buf.size());
}

bool FdOutputStream::Buffer::write_out() {
  const char* p = pbase();
  while (p < pptr()) {
    const ssize_t n = ::write(m_fd, p, static_cast<size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
  }
  setp(m_buf.data(), m_buf.data() + m_buf.size());
  return true;
}

FdOutputStream::Buffer::int_type FdOutputStream::Buffer::overflow(int_type c) {
  if (!write_out()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

FdOutputStream::FdOutputStream(int fd) : std::ostream(nullptr), m_buf(fd) { rdbuf(&m_buf); }

FdOutputStream::~FdOutputStream() { close(); }

bool FdOutputStream::close() {
  if (m_buf.fd() < 0) return good();
  const bool written = m_buf.write_out();
  const int err = errno;
  const bool closed = ::close(m_buf.fd()) == 0;
  m_buf.forget_fd();
  if (!written) errno = err;
  if (!written || !closed) setstate(std::ios::badbit);
  return good();
}

OutputFile::OutputFile(const std::string& path, const std::string& what) : m_path(path), m_what(what) {
  // Unique among runs (the pid) and among this run's files (the count); the
  // folder is the target's, so that the rename stays within one file system.
  static std::atomic<unsigned> count{0};
  const fs::path target(path);
  const fs::path dir = target.parent_path();
  for (int attempt = 0;; ++attempt) {
    const std::string name =
        "." + target.filename().string() + kPartialMark + std::to_string(::getpid()) + "-" + std::to_string(count++);
    m_temp = (dir / name).string();
    const int fd = ::open(m_temp.c_str(), kCreateFlags, kFileMode);
    if (fd >= 0) {
      m_stream = std::make_unique<FdOutputStream>(fd);
      return;
    }
    // A name taken (left by an earlier process with our pid): the next one.
    if (errno != EEXIST || attempt > 100) cannot_write(path, what, errno);
  }
}

OutputFile::~OutputFile() {
  if (m_stream) {
    m_stream->close();
    ::unlink(m_temp.c_str());
  }
}

void OutputFile::commit() {
  const bool written = m_stream->close() && ::rename(m_temp.c_str(), m_path.c_str()) == 0;
  const int err = errno;
  if (!written) {
    ::unlink(m_temp.c_str());
    m_stream.reset();
    cannot_write(m_path, m_what, err);
  }
  m_stream.reset();
}

std::unique_ptr<FdOutputStream> create_fresh_file(const std::string& path, const std::string& what) {
  // unlink() removes a link itself, never its target, and fails on a folder
  // (which the exclusive create then reports).
  if (::unlink(path.c_str()) != 0 && errno != ENOENT && errno != EISDIR && errno != EPERM)
    cannot_write(path, what, errno);
  const int fd = ::open(path.c_str(), kCreateFlags, kFileMode);
  if (fd < 0) cannot_write(path, what, errno);
  return std::make_unique<FdOutputStream>(fd);
}

}  // namespace m2
