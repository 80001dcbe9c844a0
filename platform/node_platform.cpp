#include "platform/node_platform.h"

#include "platform/host_node.h"

namespace m2 {
namespace {

class NodePlatform : public Platform {
 public:
  explicit NodePlatform(PlatformContext& ctx) : m_node("node0", ctx.run, ctx.timing, 0, 1, ctx.config_dir) {}
  std::vector<Processor*> processors() override { return {&m_node.ni.cpu}; }
  std::vector<TextOutput*> consoles() override { return {&m_node.ni.console, &m_node.host.console}; }
  std::vector<HostCpu*> hosts() override { return {&m_node.host}; }
  void add_signals(SignalProbes& out) override {
    add_ni_signals(m_node.ni, out);
    add_pci_signals(m_node.pci, out);
  }
  std::vector<std::string> statistics_models() override { return m_node.statistics_models(); }

 private:
  HostNode m_node;
};

}  // namespace

std::unique_ptr<Platform> build_node_platform(PlatformContext& ctx) { return std::make_unique<NodePlatform>(ctx); }

}  // namespace m2
