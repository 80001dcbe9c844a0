// Catch2 main for the integration tests (each TEST_CASE runs the simulator
// executable as a subprocess; see run_sim.h).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
