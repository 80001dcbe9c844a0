// IP variants: named parameter sets an architect swaps in one line of a
// config ("node0.pci.variant: pci32-33"). The sets themselves live in ip/
// (one table per IP block); a model declares a VariantParam first among its
// parameters: constructing it presets the variant's values, so each later
// parameter picks up its value. A key the config sets explicitly wins over
// the variant.
#pragma once

#include <string>
#include <vector>

#include "core/params.h"

namespace m2 {

struct IpVariantValue {
  const char* key;    // parameter name relative to the block ("clock_mhz")
  const char* value;  // as it would be written in a config file
};

struct IpVariant {
  const char* name;         // "pci64-66"
  const char* description;  // one line: what it is and where the numbers come from
  std::vector<IpVariantValue> values;
};

// Names of the variants in `table`, for the choices of a `variant` parameter.
std::vector<std::string> variant_names(const std::vector<IpVariant>& table);

// Presets "<owner>.<key>" for every value of variant `name` unless that key
// already has a preset. Throws ConfigError when `name` is not in `table`.
void apply_variant(const std::string& owner, const std::vector<IpVariant>& table, const std::string& name);

// The `variant` parameter of a block: its choices are the table's names, and
// constructing it applies the chosen variant. Declare it before the
// parameters it sets (members are constructed in declaration order): one
// declared after a parameter it presets throws std::logic_error when the
// model is built, naming both, so every test of the model catches it.
class VariantParam : public Param<std::string> {
 public:
  VariantParam(const std::string& owner, const std::string& local_name, const std::string& def,
               const std::string& description, const std::vector<IpVariant>& table)
      : Param<std::string>(owner, local_name, def, description, variant_names(table)) {
    apply_variant(owner, table, get());
  }
};

}  // namespace m2
