#pragma once
// The collectives' part of the public boundary (docs/architecture.md, "The public boundary"): a
// collective's predicted nccl-tests rows (CollectiveQuery, CollectivePrediction).

#include "ctwin/collectives/predict.hpp"
