// Two runs writing into one output folder at once would each succeed and
// leave a mixture of both: a run holds an advisory lock (flock) on the
// folder's lock file kFolderLock while it clears and writes the folder. The
// file holds the holder's pid, for the error the other run gets. It stays
// when the run ends: removed, a run that had just opened it would lock a
// file no longer in the folder while a third run locks a new one.
#pragma once

#include <filesystem>
#include <memory>

namespace m2 {

inline constexpr const char* kFolderLock = ".m2vp-lock";

class OutputFolderLock {
 public:
  // Locks `folder` (which exists) through its lock file. With `create`
  // false and no lock file there: null. Throws ConfigError naming the folder
  // (and the holder's pid when it wrote it) when another process holds the
  // lock, or when the lock file cannot be opened as a plain file.
  static std::unique_ptr<OutputFolderLock> take(const std::filesystem::path& folder, bool create);
  ~OutputFolderLock();  // released
  OutputFolderLock(const OutputFolderLock&) = delete;
  OutputFolderLock& operator=(const OutputFolderLock&) = delete;

 private:
  explicit OutputFolderLock(int fd) : m_fd(fd) {}
  int m_fd;
};

}  // namespace m2
