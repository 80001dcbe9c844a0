// Names of the earlier, partly flat scheme ("sb0_port3_mlx", "link_node3",
// "link_sb0_7_sb1_6") and their hierarchical successors ("sb0.port3.mlx",
// "node3.link", "sb0.port7.link"; docs/models/cluster.md). An old name in a
// config, --set, sim.trace or sim.vcd is an error that gives the new one.
#pragma once

#include <string>

namespace m2 {

// The current spelling of a key or pattern written with an old name
// ("link_*.variant" -> "**.link.variant"); "" when it uses no old name.
std::string renamed_name(const std::string& name);

// Throws ConfigError when a pattern of the space-or-comma separated list
// `patterns` uses an old name; `where` names its origin ("--set", a file).
void check_no_old_names(const std::string& patterns, const std::string& where);

}  // namespace m2
