// A model's statistics as the markdown table of its docs/models page
// (`m2vp-sim stats CONFIG --markdown MODULE`, traces/doc_tables.py), as
// params_markdown.h does for its parameters.
#pragma once

#include <string>

namespace m2 {

// The statistics the first model (by name) that `module` matches declares
// ("node0.ni.dma", "node*.ni.dma"; '*' as in --set patterns), in the order
// it declared them: | Name | Unit | Description | Reset after warm-up |,
// the name local to the model, "(reported only when non-zero)" after the
// description of one a run leaves out while it is zero. Throws ConfigError
// naming the pattern when it matches no model with statistics.
std::string format_stats_markdown(const std::string& module);

}  // namespace m2
