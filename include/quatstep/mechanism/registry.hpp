// The mechanism registry: every integrator a mechanism scenario runs, one line each. The scenario's
// method names and keys, the runtime → template dispatch of host/mechanism_run.cpp, the sampled
// channels an integrator adds and `quatstep docs scenario` come from this list and the entries it
// names (registry/entry.hpp's MethodInfo, the settings struct's describe(), the integrator class).
//
// Adding an integrator for mechanisms: write its header here in mechanism/ (the class, its settings
// struct with describe(), and an entry as hht.hpp ends with), include it and add the entry below.
// The mechanism model itself is one runtime-built type (mechanism.hpp: bodies, joints, springs and
// loads from the [mechanism] tables); its channels are declared in channels.hpp.
#pragma once

#include "quatstep/mechanism/hht.hpp"
#include "quatstep/mechanism/livens.hpp"
#include "quatstep/registry/type_list.hpp"

namespace quatstep::mechanism {

using MechanismMethods =
    TypeList<MechanismHhtMethod, MechanismModifiedHhtMethod, MechanismLivensEmMethod, MechanismLivensMidpointMethod>;

}  // namespace quatstep::mechanism
