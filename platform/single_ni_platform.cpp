#include "platform/single_ni_platform.h"

#include "platform/ni_node.h"

namespace m2 {
namespace {

class SingleNiPlatform : public Platform {
 public:
  explicit SingleNiPlatform(PlatformContext& ctx) : m_ni("ni0", ctx.run, ctx.config_dir) {}
  std::vector<Processor*> processors() override { return {&m_ni.cpu}; }
  std::vector<TextOutput*> consoles() override { return {&m_ni.console}; }

 private:
  NiNode m_ni;
};

}  // namespace

std::unique_ptr<Platform> build_single_ni_platform(PlatformContext& ctx) {
  return std::make_unique<SingleNiPlatform>(ctx);
}

}  // namespace m2
