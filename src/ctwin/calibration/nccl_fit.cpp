#include "ctwin/calibration/nccl_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include <Eigen/Dense>

#include "ctwin/calibration/nccl_log_check.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

enum Parameter {
  kNvlink,
  kPcie,
  kNic,
  kSwitchLink,
  kLatencyLL,
  kLatencyLL128,
  kLatencySimple,
  kShareLL,
  kShareLL128,
  kNvls,
  kParameterCount
};
constexpr const char* kParameterNames[kParameterCount] = {
    "NVLink efficiency",   "PCIe efficiency",       "NIC port efficiency",    "switch link efficiency",
    "LL latency scale",    "LL128 latency scale",   "Simple latency scale",   "LL share scale",
    "LL128 share scale",   "NVLS efficiency scale"};

// Scales live in log space: positive by construction, and a step means the same relative
// change at any value. Link efficiencies cannot exceed 1.
constexpr double kLogBound = 3.0;  // e^±3: a factor of 20 either way
constexpr double kStep = 0.01;     // finite-difference step: 1%
constexpr double kPull = 1e-3;     // weight of the pull towards the defaults, per parameter
constexpr double kUnseen = 1e-3;   // a column of the Jacobian below this norm is not identified

NcclCalibration calibration_at(const NcclCalibration& base, const Eigen::VectorXd& x) {
  NcclCalibration c = base;
  const auto scaled = [&](double value, int k) { return value * std::exp(x[k]); };
  c.nvlink_efficiency = std::min(1.0, scaled(base.nvlink_efficiency, kNvlink));
  c.pcie_efficiency = std::min(1.0, scaled(base.pcie_efficiency, kPcie));
  c.nic_efficiency = std::min(1.0, scaled(base.nic_efficiency, kNic));
  c.switch_link_efficiency = std::min(1.0, scaled(base.switch_link_efficiency, kSwitchLink));
  for (int p = 0; p < 3; ++p) c.tuning.latency_scale[p] = scaled(base.tuning.latency_scale[p], kLatencyLL + p);
  c.tuning.ll_share_scale = scaled(base.tuning.ll_share_scale, kShareLL);
  c.tuning.ll128_share_scale = scaled(base.tuning.ll128_share_scale, kShareLL128);
  c.tuning.nvls_scale = scaled(base.tuning.nvls_scale, kNvls);
  return c;
}

double value_of(const NcclCalibration& c, int k) {
  switch (k) {
    case kNvlink: return c.nvlink_efficiency;
    case kPcie: return c.pcie_efficiency;
    case kNic: return c.nic_efficiency;
    case kSwitchLink: return c.switch_link_efficiency;
    case kLatencyLL:
    case kLatencyLL128:
    case kLatencySimple: return c.tuning.latency_scale[static_cast<std::size_t>(k - kLatencyLL)];
    case kShareLL: return c.tuning.ll_share_scale;
    case kShareLL128: return c.tuning.ll128_share_scale;
    default: return c.tuning.nvls_scale;
  }
}

// log(predicted / measured) for every row of every case, in order.
Eigen::VectorXd log_residuals(const std::vector<LogComparison>& comparisons) {
  std::vector<double> values;
  for (const auto& comparison : comparisons) {
    for (const auto& row : comparison.rows) values.push_back(-std::log1p(row.error));
  }
  return Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

std::vector<double> errors_of(const LogComparison& comparison) {
  std::vector<double> errors;
  for (const auto& row : comparison.rows) errors.push_back(row.error);
  return errors;
}

void summarize_cases(const std::vector<NcclFitCase>& cases, const std::vector<LogComparison>& before,
                     const std::vector<LogComparison>& after, std::vector<NcclCaseError>& per_case,
                     ErrorStats& pooled_before, ErrorStats& pooled_after) {
  std::vector<double> all_before;
  std::vector<double> all_after;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto b = errors_of(before[i]);
    const auto a = errors_of(after[i]);
    all_before.insert(all_before.end(), b.begin(), b.end());
    all_after.insert(all_after.end(), a.begin(), a.end());
    per_case.push_back({cases[i].name, error_stats(b), error_stats(a)});
  }
  pooled_before = error_stats(all_before);
  pooled_after = error_stats(all_after);
}

}  // namespace

NcclCalibration NcclCalibration::defaults_of(const fabric::ClusterSpec& spec) {
  NcclCalibration c;
  c.nvlink_efficiency = spec.server.nvlink ? spec.server.nvlink->link.efficiency : 0;
  c.pcie_efficiency = spec.server.pcie.efficiency;
  c.nic_efficiency = spec.server.nics.link.efficiency;
  c.switch_link_efficiency = spec.fabric.link.efficiency;
  return c;
}

fabric::ClusterSpec NcclCalibration::apply(fabric::ClusterSpec spec) const {
  if (spec.server.nvlink && nvlink_efficiency > 0) spec.server.nvlink->link.efficiency = nvlink_efficiency;
  spec.server.pcie.efficiency = pcie_efficiency;
  spec.server.nics.link.efficiency = nic_efficiency;
  spec.fabric.link.efficiency = switch_link_efficiency;
  return spec;
}

std::vector<LogComparison> compare_cases(const fabric::ClusterSpec& spec, const NcclCalibration& calibration,
                                         const std::vector<NcclFitCase>& cases, network::ModelKind network) {
  const fabric::ClusterSpec applied = calibration.apply(spec);
  std::map<int, std::unique_ptr<fabric::Fabric>> fabrics;
  std::vector<LogComparison> comparisons;
  for (const auto& c : cases) {
    auto& built = fabrics[c.gpus];
    if (!built) built = std::make_unique<fabric::Fabric>(applied, c.gpus);
    collectives::CollectiveQuery query;
    query.algorithm = c.algorithm;
    query.protocol = c.protocol;
    query.network = network;
    query.tuning = calibration.tuning;
    comparisons.push_back(compare_with_log(c.log, c.op, *built, query));
  }
  return comparisons;
}

NcclFitReport fit_nccl(const fabric::ClusterSpec& spec, const std::vector<NcclFitCase>& fit,
                       const std::vector<NcclFitCase>& holdout, network::ModelKind network) {
  if (fit.empty()) throw InputError("--nccl", "", "no log to fit");
  for (const auto* cases : {&fit, &holdout}) {
    for (const NcclFitCase& c : *cases) require_fit_ready(c.log, c.op, c.gpus);
  }
  const NcclCalibration base = NcclCalibration::defaults_of(spec);
  NcclFitReport report;

  int evaluations = 0;
  const auto residuals_at = [&](const Eigen::VectorXd& x) {
    ++evaluations;
    return log_residuals(compare_cases(spec, calibration_at(base, x), fit, network));
  };
  const auto cost_of = [&](const Eigen::VectorXd& r, const Eigen::VectorXd& x) {
    return r.squaredNorm() + kPull * x.squaredNorm();
  };

  Eigen::VectorXd x = Eigen::VectorXd::Zero(kParameterCount);
  Eigen::VectorXd r = residuals_at(x);
  double cost = cost_of(r, x);
  std::vector<bool> identified(kParameterCount, false);
  double damping = 1e-2;
  constexpr int kMaxIterations = 25;
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    report.iterations = iteration + 1;
    Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(r.size(), kParameterCount);
    for (int k = 0; k < kParameterCount; ++k) {
      if (k == kNvlink && base.nvlink_efficiency <= 0) continue;
      Eigen::VectorXd probe = x;
      // Efficiencies at their ceiling of 1 can only go down.
      const double step = value_of(calibration_at(base, x), k) >= 1.0 && k <= kSwitchLink ? -kStep : kStep;
      probe[k] += step;
      jacobian.col(k) = (residuals_at(probe) - r) / step;
      identified[static_cast<std::size_t>(k)] = identified[static_cast<std::size_t>(k)] || jacobian.col(k).norm() > kUnseen;
    }
    const Eigen::MatrixXd normal = jacobian.transpose() * jacobian + kPull * Eigen::MatrixXd::Identity(kParameterCount, kParameterCount);
    const Eigen::VectorXd gradient = jacobian.transpose() * r + kPull * x;
    bool improved = false;
    for (int attempt = 0; attempt < 8 && !improved; ++attempt) {
      Eigen::MatrixXd damped = normal;
      damped.diagonal() += damping * normal.diagonal();
      Eigen::VectorXd candidate = x - damped.ldlt().solve(gradient);
      candidate = candidate.cwiseMax(-kLogBound).cwiseMin(kLogBound);
      const Eigen::VectorXd candidate_r = residuals_at(candidate);
      const double candidate_cost = cost_of(candidate_r, candidate);
      if (candidate_cost < cost) {
        const double gain = (cost - candidate_cost) / std::max(cost, 1e-300);
        const double moved = (candidate - x).cwiseAbs().maxCoeff();
        x = candidate;
        r = candidate_r;
        cost = candidate_cost;
        damping = std::max(1e-6, damping / 3);
        improved = true;
        if (gain < 1e-6 || moved < 1e-4) iteration = kMaxIterations;
      } else {
        damping *= 4;
      }
    }
    if (!improved) break;
  }

  // A parameter pushed to its bound, a factor of 20 from its default, is no measurement of
  // the cluster: the logs disagree with the topology (another build, another rank count) or
  // with themselves. Refuse rather than write a profile that predicts nonsense.
  for (int k = 0; k < kParameterCount; ++k) {
    // Efficiencies are capped at 1 whatever their scale, so only their lower bound counts.
    const bool at_bound = k <= kSwitchLink ? x[k] <= -kLogBound * 0.999 : std::fabs(x[k]) >= kLogBound * 0.999;
    if (identified[static_cast<std::size_t>(k)] && at_bound) {
      throw InputError("--nccl", "", std::string("implausible fit: ") + kParameterNames[k] + " ran to " +
                                         (x[k] > 0 ? "20 times" : "1/20 of") + " its default; the logs do not "
                                         "match this topology");
    }
  }
  report.calibration = calibration_at(base, x);
  for (int k = 0; k < kParameterCount; ++k) {
    if (k == kNvlink && base.nvlink_efficiency <= 0) continue;
    report.parameters.push_back({kParameterNames[k], value_of(base, k), value_of(report.calibration, k),
                                 identified[static_cast<std::size_t>(k)]});
  }
  summarize_cases(fit, compare_cases(spec, base, fit, network), compare_cases(spec, report.calibration, fit, network),
                  report.fitted, report.fit_before, report.fit_after);
  if (!holdout.empty()) {
    summarize_cases(holdout, compare_cases(spec, base, holdout, network),
                    compare_cases(spec, report.calibration, holdout, network), report.holdout, report.holdout_before,
                    report.holdout_after);
  }
  report.evaluations = evaluations;
  return report;
}

}  // namespace ctwin::calibration
