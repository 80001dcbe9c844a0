#include "platform/output_folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/params.h"

namespace fs = std::filesystem;

namespace m2 {
namespace {

// The pid the holder wrote, or "" when the file holds none (yet).
std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid;
  for (ssize_t i = 0; i < n && std::isdigit(static_cast<unsigned char>(buf[i])); ++i) pid += buf[i];
  return pid;
}

}  // namespace

std::unique_ptr<OutputFolderLock> OutputFolderLock::take(const fs::path& folder, bool create) {
  const fs::path path = folder / kFolderLock;
  const std::string where = path.string();
  // A few times: the file may be removed or replaced between open and lock.
  for (int attempt = 0; attempt < 10; ++attempt) {
    const int fd = ::open(where.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0666);
    if (fd < 0) {
      if (errno == ENOENT && !create) return nullptr;
      if (errno == ELOOP)
        throw ConfigError(where +
                          ": the folder's run lock is a symbolic link: expected the plain file runs make "
                          "(remove the link)");
      throw ConfigError(where + ": cannot open the folder's run lock: " + std::strerror(errno));
    }
    struct stat opened {};
    if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
      ::close(fd);
      throw ConfigError(where + ": the folder's run lock is not a plain file: expected the one runs make (remove it)");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string pid = holder_pid(fd);
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw ConfigError(folder.string() + ": another run (" + (pid.empty() ? "pid not known" : "pid " + pid) +
                          ") is writing into this folder: wait for it to end, or choose another --out (it holds " +
                          where + ")");
      throw ConfigError(where + ": cannot lock the folder: " + std::strerror(err));
    }
    struct stat named {};
    if (::lstat(where.c_str(), &named) != 0 || named.st_dev != opened.st_dev || named.st_ino != opened.st_ino) {
      ::close(fd);  // no longer the folder's lock file: open the one there now
      continue;
    }
    // Without the pid the lock holds all the same; another run's error then lacks it.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
    return std::unique_ptr<OutputFolderLock>(new OutputFolderLock(fd));
  }
  throw ConfigError(where + ": the folder's run lock keeps being replaced while this run takes it");
}

OutputFolderLock::~OutputFolderLock() { ::close(m_fd); }

}  // namespace m2
