// Runs a test body in a SystemC thread, for tests whose models wait (DMA
// engine, netbuf loopback): construct it after the model, then sc_start().
#pragma once

#include <functional>
#include <utility>

#include <systemc>

namespace m2test {

struct TestThread : sc_core::sc_module {
  SC_HAS_PROCESS(TestThread);
  TestThread(sc_core::sc_module_name n, std::function<void()> body) : sc_module(n), m_body(std::move(body)) {
    SC_THREAD(run);
  }
  void run() {
    m_body();
    finished = true;
  }
  bool finished = false;

 private:
  std::function<void()> m_body;
};

}  // namespace m2test
