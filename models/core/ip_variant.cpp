#include "core/ip_variant.h"

#include <stdexcept>

#include "core/params.h"

namespace m2 {

std::vector<std::string> variant_names(const std::vector<IpVariant>& table) {
  std::vector<std::string> names;
  for (const IpVariant& v : table) names.emplace_back(v.name);
  return names;
}

void apply_variant(const std::string& owner, const std::vector<IpVariant>& table, const std::string& name) {
  for (const IpVariant& v : table) {
    if (name != v.name) continue;
    ParamRegistry& reg = ParamRegistry::instance();
    for (const IpVariantValue& kv : v.values) {
      const std::string key = owner.empty() ? kv.key : owner + "." + kv.key;
      // A parameter constructed already has taken its value: the preset would
      // silently not reach it. The compiler cannot see the declaration order.
      if (reg.find(key))
        throw std::logic_error("internal: " + owner + "'s variant parameter is declared after " + key +
                               ", which its variants preset: declare the VariantParam first (core/ip_variant.h)");
      if (!reg.has_preset(key)) reg.preset(key, kv.value, ValueOrigin{"variant " + name});
    }
    return;
  }
  std::string known;
  for (const IpVariant& v : table) known += (known.empty() ? "" : ", ") + std::string(v.name);
  throw ConfigError("unknown variant '" + name + "' for " + owner + " (known: " + known + ")");
}

}  // namespace m2
