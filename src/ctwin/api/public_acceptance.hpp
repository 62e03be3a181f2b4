#pragma once
// The acceptance test's part of the public boundary (docs/architecture.md, "The public
// boundary"): the acceptance query, its report, and the check of measured logs against a plan.
// Only front ends include this header (the layering test checks it).

#include "ctwin/acceptance/acceptance.hpp"
#include "ctwin/acceptance/acceptance_check.hpp"
