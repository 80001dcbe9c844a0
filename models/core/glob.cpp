#include "core/glob.h"

#include <cstring>
#include <vector>

namespace m2 {

namespace {

// Whether pattern[i..] matches text[j..], each (i, j) decided once: plain
// backtracking is exponential in the number of stars (a fuzzed key with a
// hundred '*' ran for minutes), this is at most |pattern| x |text| steps.
class Matcher {
 public:
  Matcher(const char* pattern, const char* text)
      : m_p(pattern),
        m_s(text),
        m_m(std::strlen(pattern)),
        m_n(std::strlen(text)),
        m_memo((m_m + 1) * (m_n + 1), kUnknown) {}

  bool at(size_t i, size_t j) {
    signed char& known = m_memo[i * (m_n + 1) + j];
    if (known != kUnknown) return known != 0;
    bool r;
    if (i == m_m) {
      r = j == m_n;
    } else if (m_p[i] == '*') {
      const bool any = i + 1 < m_m && m_p[i + 1] == '*';  // "**" crosses dots, "*" does not
      // The star matches nothing, or takes one more character and stays.
      r = at(any ? i + 2 : i + 1, j) || (j < m_n && (any || m_s[j] != '.') && at(i, j + 1));
    } else {
      r = j < m_n && m_p[i] == m_s[j] && at(i + 1, j + 1);
    }
    known = r ? 1 : 0;
    return r;
  }

 private:
  static constexpr signed char kUnknown = -1;
  const char* m_p;
  const char* m_s;
  size_t m_m, m_n;
  std::vector<signed char> m_memo;
};

}  // namespace

bool glob_match(const char* p, const char* s) {
  if (!std::strchr(p, '*')) return std::strcmp(p, s) == 0;
  return Matcher(p, s).at(0, 0);
}

}  // namespace m2
