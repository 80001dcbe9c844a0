// Parameters of the MPI library (sw/host/mpi) on one host: its protocol
// knobs and the host CPU time of its own work. Declared here, with the
// platform, so that configs set them (node*.host.mpi.eager_limit) and
// `./m2vp params` lists them; the C library reads them at MPI_Init through
// m2host_param("mpi.NAME"). Design and reasons: docs/mpi.md.
#pragma once

#include <cstdint>
#include <string>

#include "core/params.h"

namespace m2 {

struct MpiParams {
  explicit MpiParams(const std::string& owner);  // "node0.host.mpi"

  Param<std::string> device;
  Param<uint64_t> eager_limit;
  Param<uint64_t> zcopy_threshold;
  Param<bool> pin_cache;
  Param<uint64_t> pin_cache_bytes;
  Param<uint64_t> eager_slots;
  Param<uint64_t> call_cycles;
  Param<uint64_t> match_cycles;
  Param<double> progress_poll_us;
};

}  // namespace m2
