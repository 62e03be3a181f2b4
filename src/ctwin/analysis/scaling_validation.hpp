#pragma once
// Scaling validation: a published strong- or weak-scaling run replayed by the scaling study and
// compared with what its source measured, at each measured size and as a trend (MFU at the
// largest measured size / MFU at the smallest). Nothing here is fitted to the measurements.
//
// Sources round MFU (Megatron-LM's README to whole percents), so the measured trend is an
// interval: with MFU a ± r and b ± r, the ratio b/a lies in [(b − r)/(a + r), (b + r)/(a − r)].
// The trend counts as reproduced when the predicted ratio falls inside it.
//
// The cases file (validation/training/scaling.json, written by make_cases.py from
// training_runs.json) holds `studies`, each a scenario, the sizes to run and the measured points.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/analysis/scaling.hpp"

namespace ctwin::analysis {

struct MeasuredMfu {
  std::string run;  ///< the published run's id in the runs file
  std::int64_t gpus = 0;
  double mfu = 0;  ///< a fraction
};

struct ScalingCase {
  std::string id;
  std::string group;
  std::string source;
  std::filesystem::path scenario;
  std::vector<std::int64_t> gpus;    ///< the sizes to run, ascending; every measured size among them
  bool weak = false;
  std::vector<MeasuredMfu> measured;  ///< ascending by GPUs, at least two
  double mfu_rounding = 0;            ///< half the step the source rounded MFU to (0.005 for whole percents)
};

struct ScalingCases {
  std::string runs_file;
  std::vector<ScalingCase> studies;
};

/// Reads a scaling cases file strictly (unknown or missing keys, a measured size not among the
/// sizes, fewer than two measured points, a duplicate id: InputError naming the file and pointer).
/// Scenario paths resolve against the file's folder, then `repo_root`.
[[nodiscard]] ScalingCases load_scaling_cases(const std::filesystem::path& path,
                                              const std::filesystem::path& repo_root);

struct MfuComparison {
  MeasuredMfu measured;
  double predicted = 0;
  double error = 0;  ///< predicted / measured − 1
};

struct ScalingComparison {
  const ScalingCase* scaling_case = nullptr;
  ScalingStudy study;
  std::vector<MfuComparison> points;  ///< one per measured size
  double measured_ratio = 0;          ///< MFU at the largest measured size / at the smallest
  double measured_ratio_low = 0;      ///< what the source's rounding allows
  double measured_ratio_high = 0;
  double predicted_ratio = 0;
  [[nodiscard]] bool trend_reproduced() const {
    return predicted_ratio >= measured_ratio_low && predicted_ratio <= measured_ratio_high;
  }
};

/// Runs the case's scaling study (network overridden when `network` is set). Throws InputError,
/// naming the case, when a measured size cannot run the scenario's split.
/// `overrides` ("gpu=models/gpus/calibrated/h100-sxm.json") apply to the study's scenario, after
/// the network.
[[nodiscard]] ScalingComparison validate_scaling(const ScalingCase& scaling_case,
                                                 const std::filesystem::path& repo_root,
                                                 const std::optional<network::ModelKind>& network,
                                                 const std::vector<std::string>& overrides = {});

}  // namespace ctwin::analysis
