// The LT data path's own scheduler (core/data_path_scheduler.h): steps in
// (time, order of scheduling); running ahead of SystemC time only while no
// other process has anything to do first; notifications and observable
// actions of a step running ahead land at the step's time.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <systemc>

#include "core/data_path_scheduler.h"

using m2::DataPathScheduler;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

sc_time ns(double v) { return sc_time(v, SC_NS); }

// A data-path model of the tests: each step logs its name, its data-path
// time and SystemC time.
struct Recorder {
  struct Entry {
    std::string what;
    sc_time now, kernel;
  };
  std::vector<Entry> log;
  void step(const std::string& what) {
    log.push_back({what, DataPathScheduler::instance().now(), sc_core::sc_time_stamp()});
  }
};

struct Tagged {
  Recorder* r;
  std::string what;
  void run() { r->step(what); }
};

void schedule(Tagged& t, sc_time at) { DataPathScheduler::instance().schedule<Tagged, &Tagged::run>(at, &t); }

// A SystemC thread that wakes at given times and logs what it saw.
struct Observer : sc_core::sc_module {
  std::vector<sc_time> wakes;
  std::vector<size_t> seen;  // steps logged when it woke
  Recorder* r = nullptr;
  sc_core::sc_event* wait_for = nullptr;
  SC_HAS_PROCESS(Observer);
  Observer(sc_core::sc_module_name n, Recorder* rec, std::vector<sc_time> at) : sc_module(n), r(rec), m_at(at) {
    SC_THREAD(run);
  }
  void run() {
    if (wait_for) {
      wait(*wait_for);
      wakes.push_back(sc_core::sc_time_stamp());
      seen.push_back(r->log.size());
      return;
    }
    for (const sc_time& t : m_at) {
      wait(t - sc_core::sc_time_stamp());
      wakes.push_back(sc_core::sc_time_stamp());
      seen.push_back(r->log.size());
    }
  }

 private:
  std::vector<sc_time> m_at;
};

}  // namespace

TEST_CASE("data-path scheduler: time order, and the order of scheduling at the same time", "[model][data_path]") {
  DataPathScheduler& dp = DataPathScheduler::instance();
  Recorder r;
  Tagged a{&r, "a"}, b{&r, "b"}, c{&r, "c"}, d{&r, "d"};
  schedule(c, ns(30));
  schedule(a, ns(10));
  schedule(d, ns(30));  // after c: scheduled later, same time
  schedule(b, ns(10));  // after a
  sc_core::sc_start(ns(100));
  REQUIRE(r.log.size() == 4);
  CHECK(r.log[0].what == "a");
  CHECK(r.log[1].what == "b");
  CHECK(r.log[2].what == "c");
  CHECK(r.log[3].what == "d");
  CHECK(r.log[0].now == ns(10));
  CHECK(r.log[3].now == ns(30));
  CHECK(dp.stats().steps == 4);
  CHECK(dp.idle());
}

TEST_CASE("data-path scheduler: runs ahead of SystemC time while nothing else is pending", "[model][data_path]") {
  DataPathScheduler& dp = DataPathScheduler::instance();
  Recorder r;
  Tagged a{&r, "a"}, b{&r, "b"}, c{&r, "c"};
  schedule(a, ns(10));
  schedule(b, ns(20));
  schedule(c, ns(35));
  sc_core::sc_start(ns(100));
  REQUIRE(r.log.size() == 3);
  // One kernel wake-up at 10 ns ran all three, each at its own data-path time.
  CHECK(dp.stats().wakeups == 1);
  CHECK(dp.stats().ahead_steps == 2);
  for (const auto& e : r.log) CHECK(e.kernel == ns(10));
  CHECK(r.log[1].now == ns(20));
  CHECK(r.log[2].now == ns(35));
}

TEST_CASE("data-path scheduler: does not run past another process's activity", "[model][data_path]") {
  DataPathScheduler& dp = DataPathScheduler::instance();
  Recorder r;
  Tagged a{&r, "a"}, b{&r, "b"}, c{&r, "c"};
  schedule(a, ns(10));
  schedule(b, ns(20));
  schedule(c, ns(40));
  Observer o("observer", &r, {ns(15), ns(30)});
  sc_core::sc_start(ns(100));
  REQUIRE(r.log.size() == 3);
  // At 15 ns the observer sees a done and b not yet; at 30 ns b and not c.
  REQUIRE(o.seen.size() == 2);
  CHECK(o.seen[0] == 1);
  CHECK(o.seen[1] == 2);
  CHECK(r.log[1].kernel == ns(20));  // b waited for SystemC time (the observer was due at 15 ns)
  CHECK(r.log[2].kernel == ns(40));  // the wake-up after b was already due then: no step ran ahead
  CHECK(dp.stats().ahead_steps == 0);
}

namespace {

// A step that notifies an event and then an observable action.
struct Notifier {
  sc_core::sc_event event;
  std::vector<sc_time> observed;
  void run() {
    DataPathScheduler& dp = DataPathScheduler::instance();
    dp.notify(event);
    dp.observe([this] { observed.push_back(sc_core::sc_time_stamp()); });
  }
};

}  // namespace

TEST_CASE("data-path scheduler: a step ahead notifies and acts at its own time", "[model][data_path]") {
  DataPathScheduler& dp = DataPathScheduler::instance();
  Recorder r;
  Tagged a{&r, "a"}, late{&r, "late"};
  Notifier n;
  schedule(a, ns(10));
  dp.schedule<Notifier, &Notifier::run>(ns(25), &n);
  schedule(late, ns(25));  // same time, scheduled after the notifier
  Observer o("observer", &r, {});
  o.wait_for = &n.event;
  sc_core::sc_start(ns(100));
  // The notifier ran ahead (from 10 ns); its event and its action came at 25 ns.
  REQUIRE(o.wakes.size() == 1);
  CHECK(o.wakes[0] == ns(25));
  REQUIRE(n.observed.size() == 1);
  CHECK(n.observed[0] == ns(25));
  // The step after it waited for SystemC time to reach 25 ns.
  REQUIRE(r.log.size() == 2);
  CHECK(r.log[1].what == "late");
  CHECK(r.log[1].kernel == ns(25));
}

TEST_CASE("data-path scheduler: a step in the past is refused with the times", "[model][data_path]") {
  DataPathScheduler& dp = DataPathScheduler::instance();
  Recorder r;
  Tagged a{&r, "a"};
  sc_core::sc_start(ns(50));
  try {
    schedule(a, ns(10));
    FAIL("no error");
  } catch (const std::logic_error& e) {
    CHECK(std::string(e.what()).find("before now (50 ns)") != std::string::npos);
  }
  CHECK(dp.idle());
}

namespace {

// A CPU-like thread: at SystemC time `at` it stands at local time `at + offset`
// and asks whether it may go on without waiting (quiet_until).
struct LocalTimeCaller : sc_core::sc_module {
  sc_time at, offset;
  bool quiet = false;
  size_t seen = 0;  // steps logged right after the call
  Recorder* r = nullptr;
  SC_HAS_PROCESS(LocalTimeCaller);
  LocalTimeCaller(sc_core::sc_module_name n, Recorder* rec, sc_time a, sc_time o)
      : sc_module(n), at(a), offset(o), r(rec) {
    SC_THREAD(run);
  }
  void run() {
    wait(at);
    quiet = DataPathScheduler::quiet_until(sc_core::sc_time_stamp() + offset);
    seen = r->log.size();
  }
};

}  // namespace

TEST_CASE("data-path scheduler: a process at a local time runs the steps before it as a call", "[model][data_path]") {
  DataPathScheduler& dp = DataPathScheduler::instance();
  Recorder r;
  Tagged a{&r, "a"}, b{&r, "b"}, late{&r, "late"};
  schedule(a, ns(120));
  schedule(b, ns(150));
  schedule(late, ns(400));
  LocalTimeCaller cpu("cpu", &r, ns(100), ns(200));  // at 100 ns, local time 300 ns
  sc_core::sc_start(ns(1000));
  // a and b ran inside the call, at their own times; nothing else was pending before 300 ns.
  CHECK(cpu.quiet);
  CHECK(cpu.seen == 2);
  REQUIRE(r.log.size() == 3);
  CHECK(r.log[0].kernel == ns(100));
  CHECK(r.log[1].now == ns(150));
  CHECK(r.log[2].what == "late");
  CHECK(dp.stats().catch_ups == 1);
}

TEST_CASE("data-path scheduler: a catch-up stops at another process's activity", "[model][data_path]") {
  DataPathScheduler& dp = DataPathScheduler::instance();
  Recorder r;
  Tagged a{&r, "a"}, b{&r, "b"};
  schedule(a, ns(120));
  schedule(b, ns(250));
  Observer other("other", &r, {ns(200)});
  LocalTimeCaller cpu("cpu", &r, ns(100), ns(200));
  sc_core::sc_start(ns(1000));
  // a ran in the call; b, after the other process's activity at 200 ns, did not.
  CHECK_FALSE(cpu.quiet);
  CHECK(cpu.seen == 1);
  REQUIRE(other.seen.size() == 1);
  CHECK(other.seen[0] == 1);
  REQUIRE(r.log.size() == 2);
  CHECK(r.log[1].kernel == ns(250));
  CHECK(dp.stats().catch_ups == 1);
}
