#pragma once
// The reliability model against published failure counts (validation/reliability/cases.json):
// each case names a build (topology, GPUs), a period and the failures of one component group;
// ctwin predicts Σ rate · units · hours over that group's classes. Fit cases set the GPU rate
// (maximum likelihood of a Poisson rate: failures / GPU-hours); held-out cases only compare.

#include <filesystem>
#include <string>
#include <vector>

#include "ctwin/analysis/reliability_model.hpp"

namespace ctwin::analysis {

struct ReliabilityCase {
  std::string name;
  bool fit = false;  ///< "fit" (sets a rate) or "held_out"
  std::string topology;
  int gpus = 0;
  double days = 0;
  std::string group;  ///< "gpu", "host", "network", "software", "node" (every class taking a node) or "all"
  double count = 0;
  std::string measured;
  std::string source_title;
  std::string source_url;
  std::string source_date;
  std::string source_where;
};

[[nodiscard]] std::vector<ReliabilityCase> load_reliability_cases(const std::filesystem::path& path);

struct CasePrediction {
  ReliabilityCase c;
  ComponentCounts counts;
  double predicted = 0;
  double error = 0;  ///< predicted / measured − 1
};

/// Builds each case's fabric (topology paths are relative to `repo_root`) and predicts its count.
[[nodiscard]] std::vector<CasePrediction> predict_cases(const ReliabilityModel& model,
                                                        const std::vector<ReliabilityCase>& cases,
                                                        const std::filesystem::path& repo_root);

/// Failures per GPU-hour that maximizes the likelihood of the fit cases of group "gpu".
[[nodiscard]] double fit_gpu_rate(const std::vector<ReliabilityCase>& cases);

/// Whether a component class counts towards a case's group.
[[nodiscard]] bool in_group(const ComponentRate& component, const std::string& group);

}  // namespace ctwin::analysis
