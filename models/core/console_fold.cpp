#include "core/console_fold.h"

#include <cctype>

#include "core/log.h"

namespace m2 {

namespace {

// The line's form: each number but a lone 0 replaced by '#'.
std::string shape_of(const std::string& text) {
  std::string s;
  for (size_t i = 0; i < text.size();) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      const bool zero = j == i + 1 && text[i] == '0' && (j == text.size() || text[j] != '.');
      s += zero ? "0" : "#";
      i = j;
    } else {
      s += text[i++];
    }
  }
  return s;
}

}  // namespace

std::string component_kind(const std::string& name) {
  std::string k;
  for (size_t i = 0; i < name.size();) {
    if (std::isdigit(static_cast<unsigned char>(name[i]))) {
      k += '*';
      while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
    } else {
      k += name[i++];
    }
  }
  return k;
}

ConsoleFold& ConsoleFold::instance() {
  static ConsoleFold fold;
  return fold;
}

void ConsoleFold::set_speakers(const std::set<std::string>& names) {
  std::map<std::string, unsigned> count;
  for (const std::string& n : names) ++count[component_kind(n)];
  m_instances.clear();
  for (const auto& [kind, n] : count)
    if (n >= kFoldFrom) m_instances[kind] = n;
}

void ConsoleFold::clear() {
  m_instances.clear();
  m_index.clear();
  m_forms.clear();
}

void ConsoleFold::line(const std::string& speaker, const std::string& text) {
  const std::string full = "[" + speaker + "] " + text;
  const std::string kind = component_kind(speaker);
  if (!m_instances.count(kind)) return Log::instance().out(full);
  auto [it, fresh] = m_index.try_emplace({kind, shape_of(text)}, m_forms.size());
  if (fresh) m_forms.push_back(Form{kind, it->first.second, speaker, {}, 0});
  Form& f = m_forms[it->second];
  f.speakers.insert(speaker);
  // The first instance to print a form prints all its lines of it (a
  // table's rows come from one instance); the others' go to run.log.
  if (speaker == f.first_speaker) return Log::instance().out(full);
  f.folded++;
  Log::instance().folded(full);
}

std::vector<std::string> ConsoleFold::summary() const {
  std::vector<std::string> r;
  for (const Form& f : m_forms) {
    if (f.folded == 0) continue;
    r.push_back("[" + f.kind + "] " + std::to_string(f.folded) + " more line" + (f.folded == 1 ? "" : "s") + " like '" +
                f.shape + "' (" + std::to_string(f.speakers.size()) + " of " + std::to_string(m_instances.at(f.kind)) +
                " instances; each in run.log)");
  }
  return r;
}

}  // namespace m2
