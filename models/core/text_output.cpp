#include "core/text_output.h"

#include "core/log.h"
#include "core/result_table.h"

namespace m2 {

void TextOutput::put(char c) {
  if (c == '\n') {
    m_lines.push_back(m_current);
    Log::instance().out("[" + m_speaker + "] " + m_current);
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
