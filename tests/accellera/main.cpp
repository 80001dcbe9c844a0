// The Catch2 runner of the Accellera TLM examples' tests (test_accellera_tlm.cpp).
// Their reporting.h wants its globals (the report enables) defined in one
// translation unit: here.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

#define REPORT_DEFINE_GLOBALS
#include "reporting.h"

int sc_main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
