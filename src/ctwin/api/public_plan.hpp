#pragma once
// The planner's part of the public boundary (docs/architecture.md, "The public boundary"): the
// plan query and its ranked result, the ranking of shards and the framework arguments a
// candidate prints. Only front ends include this header; the library's own layers include
// plan/ directly or not at all (the layering test checks both).

#include "ctwin/plan/framework_args.hpp"
#include "ctwin/plan/plan.hpp"
#include "ctwin/plan/plan_rank.hpp"
