#pragma once
// The workload layer's part of the public boundary (docs/architecture.md, "The public boundary"):
// what `ctwin model` prints of a model and a split: FLOPs, memory, parameters, pipeline layout.

#include "ctwin/workload/flops.hpp"
#include "ctwin/workload/memory_model.hpp"
#include "ctwin/workload/parameter_count.hpp"
#include "ctwin/workload/pipeline_layout.hpp"
