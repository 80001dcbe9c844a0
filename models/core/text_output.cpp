#include "core/text_output.h"

#include "core/console_fold.h"
#include "core/result_table.h"

namespace m2 {

void TextOutput::put(char c) {
  if (c == '\n') {
    m_lines.push_back(m_current);
    ConsoleFold::instance().line(m_speaker, m_current);  // the console, or run.log only when folded
    if (m_table_lines) ResultTable::instance().take_line(m_speaker, m_current);
    if (m_listener) m_listener(m_current + "\n");
    m_current.clear();
  } else if (c != '\r') {
    m_current += c;
  }
}

void TextOutput::flush() {
  if (!m_current.empty()) put('\n');
}

}  // namespace m2
