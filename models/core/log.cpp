#include "core/log.h"

#include <iostream>
#include <mutex>

#include "core/output_file.h"
#include "core/params.h"

namespace m2 {

Log& Log::instance() {
  static Log log;
  return log;
}

void Log::open_file(const std::string& path) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_file.reset();
  m_file = create_fresh_file(path, "the run log");
}

void Log::close_file() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_file.reset();
}

void Log::clear_status() {
  if (!m_status_shown) return;
  std::cerr << "\r\033[K" << std::flush;
  m_status_shown = false;
}

void Log::status(const std::string& line) {
  std::lock_guard<std::mutex> lock(m_mutex);
  clear_status();
  if (line.empty()) return;
  std::cerr << '\r' << line << std::flush;
  m_status_shown = true;
}

void Log::out(const std::string& line) {
  std::lock_guard<std::mutex> lock(m_mutex);
  clear_status();
  if (!m_quiet) {
    std::cout << line << '\n' << std::flush;
  } else {
    m_quieted.push_back(line);
    if (m_quieted.size() > kQuietedTail) m_quieted.pop_front();
    remember_for_source(line);
  }
  if (m_file) *m_file << line << '\n' << std::flush;
}

std::vector<std::string> Log::quieted_tail() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return {m_quieted.begin(), m_quieted.end()};
}

void Log::remember_for_source(const std::string& line) {
  const size_t end = line.size() > 1 && line[0] == '[' ? line.find(']') : std::string::npos;
  if (end == std::string::npos) return;
  std::deque<std::string>& own = m_quieted_by_source[line.substr(1, end - 1)];
  own.push_back(line);
  if (own.size() > kSourceTail) own.pop_front();
}

void Log::folded(const std::string& line) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_quiet) remember_for_source(line);
  if (m_file) *m_file << line << '\n' << std::flush;
}

std::vector<std::string> Log::quieted_tail_of(const std::string& source) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto it = m_quieted_by_source.find(source);
  if (it == m_quieted_by_source.end()) return {};
  return {it->second.begin(), it->second.end()};
}

void Log::always(const std::string& line) {
  std::lock_guard<std::mutex> lock(m_mutex);
  clear_status();
  (m_quiet ? std::cerr : std::cout) << line << '\n' << std::flush;
  if (m_file) *m_file << line << '\n' << std::flush;
}

void Log::result(const std::string& line) {
  std::lock_guard<std::mutex> lock(m_mutex);
  clear_status();
  std::cout << line << '\n' << std::flush;
  if (m_file) *m_file << line << '\n' << std::flush;
}

void Log::file_only(const std::string& line) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_file) *m_file << line << '\n' << std::flush;
}

void Log::warning(const std::string& line) {
  std::lock_guard<std::mutex> lock(m_mutex);
  clear_status();
  std::cerr << "warning: " << line << '\n' << std::flush;
  if (m_file) *m_file << "warning: " << line << '\n' << std::flush;
}

void Log::error(const std::string& line) {
  std::lock_guard<std::mutex> lock(m_mutex);
  clear_status();
  std::cerr << "error: " << line << '\n' << std::flush;
  if (m_file) *m_file << "error: " << line << '\n' << std::flush;
}

}  // namespace m2
