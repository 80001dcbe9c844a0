// A TLM extension by which a target tells the initiator that a read had no
// side effects: it only looked at the target's state (a register bank's
// getters), popped nothing, notified nothing. A processor that synchronises
// before every device access may then skip that synchronisation for later
// reads of the same address while no other process has anything to do before
// its local time: the target's state cannot change meanwhile, so reading it
// early gives the same value (docs/models/processor.md, "Polling").
// Targets that do not know the extension leave `side_effect_free` false.
#pragma once

#include <tlm>

namespace m2 {

struct ReadHint : tlm::tlm_extension<ReadHint> {
  bool side_effect_free = false;

  tlm::tlm_extension_base* clone() const override {
    auto* h = new ReadHint;
    h->side_effect_free = side_effect_free;
    return h;
  }
  void copy_from(const tlm::tlm_extension_base& other) override {
    side_effect_free = static_cast<const ReadHint&>(other).side_effect_free;
  }
};

// Marks a successful read of `t` as free of side effects, if its initiator asked.
inline void mark_side_effect_free(tlm::tlm_generic_payload& t) {
  if (ReadHint* h = t.get_extension<ReadHint>()) h->side_effect_free = true;
}

}  // namespace m2
