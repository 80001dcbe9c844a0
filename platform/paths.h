// Firmware lookup moved to the model core (the switch box resolves its own
// firmware); this header keeps the platform's includes working.
#pragma once

#include "core/paths.h"
