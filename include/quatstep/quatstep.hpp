// quatstep — batched rigid-body rotation integrators (umbrella header): the registry's integrators
// and models, the per-body step loop and the quaternion algebra.
#pragma once

#include "quatstep/config.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/quaternion.hpp"
#include "quatstep/registry.hpp"
