#pragma once
// The studies' part of the public boundary (docs/architecture.md, "The public boundary"): sweep,
// size, goodput, explain, and the cluster's job mixes, policies and their JSON. Only front ends
// include this header (the layering test checks it).

#include "ctwin/studies/cluster_jobs.hpp"
#include "ctwin/studies/cluster_json.hpp"
#include "ctwin/studies/cluster_policies.hpp"
#include "ctwin/studies/explain.hpp"
#include "ctwin/studies/goodput.hpp"
#include "ctwin/studies/size.hpp"
#include "ctwin/studies/sweep.hpp"
