#pragma once
// The options of `ctwin calibrate`, shared by its modes (--gemm, --nccl, --layers).

#include <string>
#include <vector>

namespace ctwin::cli {

struct CalibrateOptions {
  std::string gemm;
  std::string layers;
  std::string base;
  std::vector<std::string> nccl;
  std::string cluster;
  std::string op;
  int gpus = 0;
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::string network = "flow";
  std::vector<std::string> holdout;
  std::string output;
  std::string format = "table";
};

/// --nccl mode: fit a cluster's link efficiencies and protocol costs to nccl-tests logs.
void calibrate_nccl(const CalibrateOptions& options);

/// --layers mode: fit a GPU profile's training_time_scale to measured layer times.
void calibrate_layers(const CalibrateOptions& options);

}  // namespace ctwin::cli
