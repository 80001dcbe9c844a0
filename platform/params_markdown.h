// A model's parameters as the markdown table of its docs/models page
// (`m2vp-sim params CONFIG --markdown MODULE`, traces/doc_tables.py).
#pragma once

#include <string>

namespace m2 {

// The parameters directly under the first module (by name) that `module`
// matches ("node0.ni.dma", "node*.ni.dma"; '*' as in --set patterns): one
// row each, | Name | Unit | Default | Description |, the range or choices
// after the description. Throws ConfigError naming the pattern when it
// matches no module with parameters.
std::string format_params_markdown(const std::string& module);

}  // namespace m2
