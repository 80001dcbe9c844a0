// Writing the simulator's files into a run's output folder without ever
// opening a name that may be a symbolic link (one left in the folder would
// otherwise send the write to wherever it points, outside the folder):
//  - OutputFile, for a file written in one go (results.tsv, the VCD, the
//    manifest ...): written under a new name in the same folder, created
//    exclusively, then renamed over the final name. The rename replaces the
//    entry itself, a link included, never what it points to; and a reader
//    sees the old file or the whole new one, never half of it.
//  - create_fresh_file, for a file written while the run goes on (run.log):
//    see there.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace m2 {

// What a temporary file's name carries (".NAME" + kPartialMark + pid and a
// count): a run that was killed while writing leaves such a file, which the
// next run into the folder removes (output_folder.h).
inline constexpr const char* kPartialMark = ".m2vp-partial-";

// A stream over a file descriptor it owns.
class FdOutputStream : public std::ostream {
 public:
  explicit FdOutputStream(int fd);
  ~FdOutputStream() override;
  FdOutputStream(const FdOutputStream&) = delete;
  FdOutputStream& operator=(const FdOutputStream&) = delete;
  // Flushes and closes; false when a write or the close failed (errno says why).
  bool close();

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(int fd);
    int fd() const { return m_fd; }
    bool write_out();  // the buffered bytes to the file
    void forget_fd() { m_fd = -1; }

   protected:
    int_type overflow(int_type c) override;
    int sync() override { return write_out() ? 0 : -1; }

   private:
    int m_fd;
    std::vector<char> m_buf;
  };
  Buffer m_buf;
};

class OutputFile {
 public:
  // Creates the temporary file next to `path`. Throws ConfigError
  // "<path>: cannot write <what>: <why>".
  OutputFile(const std::string& path, const std::string& what);
  // Without commit(): the temporary file is removed, `path` is left as it was.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return *m_stream; }
  // Writes everything out and renames the file to `path`. Throws ConfigError
  // as above (the temporary file is removed then).
  void commit();

 private:
  std::string m_path, m_what, m_temp;
  std::unique_ptr<FdOutputStream> m_stream;
};

// A new empty file at `path`, open for writing, for a file that grows while
// the run goes on: whatever non-folder entry had the name (an earlier run's
// file, a link) is unlinked first, and the file is created exclusively
// (O_CREAT|O_EXCL|O_NOFOLLOW), so that it is never a link's target. (Not
// written under a temporary name and renamed at the end: a run that is
// killed or crashes would then leave no log under the name users look for,
// and one cannot follow it with `tail -f` while it runs.) Throws ConfigError
// "<path>: cannot write <what>: <why>".
std::unique_ptr<FdOutputStream> create_fresh_file(const std::string& path, const std::string& what);

}  // namespace m2
