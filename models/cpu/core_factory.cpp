#include "cpu/core_factory.h"

#include <stdexcept>

#include "cpu/unicorn/ppc603e_unicorn.h"

namespace m2::iss {

std::vector<std::string> core_models() { return {"ppc603e"}; }

std::unique_ptr<Core> make_core(const std::string& model, Environment& env, const CoreConfig& cfg) {
  if (model == "ppc603e") return make_unicorn_ppc603e(env, Ppc603eConfig{cfg.name, cfg.timebase_hz, cfg.private_page});
  throw std::invalid_argument("unknown core model '" + model + "'");
}

}  // namespace m2::iss
