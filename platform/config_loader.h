// Turns a YAML config file and --set options into parameter presets.
//
// A config file is a YAML mapping; nested mappings stand for the hierarchy, so
//   ni0: {cpu: {clock_mhz: 300}}    and    ni0.cpu.clock_mhz: 300
// both preset "ni0.cpu.clock_mhz" to "300". A list of plain values becomes one
// comma-separated text ("a,b,c"). Every preset remembers "<path>:<line>" so
// that a later error can point at the line that set it.
#pragma once

#include <string>

#include "core/params.h"

namespace m2 {

// Presets every key of the YAML file at `path` in `reg`, except the top-level
// `cases` (config_cases.h). Nothing is preset if the file has any error.
// Throws ConfigError naming the file and line. Returns the number of keys
// preset (0 for an empty or comments-only file).
size_t load_config_presets(const std::string& path, ParamRegistry& reg);

// Presets one "NAME=VALUE" command-line assignment (origin "--set"); applied
// after the config file, it overrides the file's value.
void apply_set_override(const std::string& assignment, ParamRegistry& reg);

// Presets "<CPU>.gdb_port" from one "CPU=PORT" of --gdb (origin "--gdb").
void apply_gdb_option(const std::string& assignment, ParamRegistry& reg);

// The name of a configuration: the file stem ("configs/hello.yaml" => "hello").
std::string config_name_of(const std::string& path);

}  // namespace m2
