#pragma once
// The compute layer's part of the public boundary (docs/architecture.md, "The public boundary"):
// GPU profiles (GpuSpec) and the GEMM model with the shapes a user may ask about.

#include "ctwin/compute/gemm_limits.hpp"
#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/gpu_spec.hpp"
