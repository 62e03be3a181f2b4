#pragma once
// Fitting a cluster to its own nccl-tests logs. The twin's parameters that nccl-tests can see
// are scaled from their defaults: the achieved share of each link class (NVLink, PCIe, NIC
// port, switch-to-switch), the latency of each protocol (LL, LL128, Simple), the payload
// share of LL and LL128, and the NVLS efficiency.
//
// A fit attributes only what its logs can see. A log within one node (scale-up domain)
// exercises the intra-node path; one across nodes the inter-node path, on which the NIC port,
// the switch links and (where NVLink carries the intra-node traffic) the GPU-to-NIC PCIe link
// sit in series on every transfer: nothing in the log tells them apart, so they are scaled by
// one effective inter-node factor. The intra-node link (NVLink, or PCIe on PCIe-only servers)
// and the protocol parameters also set every intra-node path, so they are fitted only when a
// log runs within one node: a cross-node log that is uniformly slower changes no intra-node
// prediction (it used to be fitted as a PCIe loss that made intra-node TP faster, issue 35). The fit minimises the squared log error of
// every measured time (so a 10% miss weighs the same at 8 B and at 8 GiB) by
// Levenberg–Marquardt on the logarithms of the scales, with finite-difference derivatives
// (each evaluation replays every log on the real fabric model) and a weak pull towards the
// defaults, so a parameter the logs cannot see stays where it was and is reported as such.

#include <string>
#include <vector>

#include "ctwin/calibration/nccl_comparison.hpp"
#include "ctwin/calibration/nccl_log.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::calibration {

/// One measured log, with what it ran.
struct NcclFitCase {
  std::string name;  ///< for reports: the log's path
  NcclLog log;
  collectives::Op op = collectives::Op::kAllReduce;
  int gpus = 0;
  collectives::Algorithm algorithm = collectives::Algorithm::kAuto;  ///< NCCL_ALGO, if forced
  collectives::Protocol protocol = collectives::Protocol::kAuto;     ///< NCCL_PROTO, if forced
};

/// What a calibration changes: the cluster's link efficiencies and the collectives' tuning.
struct NcclCalibration {
  double nvlink_efficiency = 0;  ///< 0: the cluster has none
  double pcie_efficiency = 1;
  double nic_efficiency = 1;
  double switch_link_efficiency = 1;
  collectives::CollectiveTuning tuning;

  /// The calibration's values as they stand in `spec` and the default tuning.
  [[nodiscard]] static NcclCalibration defaults_of(const fabric::ClusterSpec& spec);
  /// `spec` with these efficiencies.
  [[nodiscard]] fabric::ClusterSpec apply(fabric::ClusterSpec spec) const;
};

struct NcclFitParameter {
  std::string name;  ///< "nvlink efficiency", "LL latency scale", ...
  double initial = 0;
  double fitted = 0;
  bool identified = false;  ///< false: the logs do not constrain it alone (see `reason`)
  std::string reason;       ///< why it is not identified; empty when it is
};

/// One effective factor per path the logs exercise: the links that only that path uses, scaled
/// together, because links in series on every path of the logs cannot be told apart.
struct NcclPathFactor {
  std::string path;                  ///< "intra-node" or "inter-node"
  std::vector<std::string> links;    ///< the parameters it scales, e.g. "NIC port efficiency"
  double scale = 1;                  ///< fitted / default, the same for each (capped at 1)
  bool identified = false;           ///< a log exercises the path and its figures move with it
};

struct NcclCaseError {
  std::string name;
  ErrorStats before;  ///< with the defaults
  ErrorStats after;   ///< with the calibration
};

struct NcclFitReport {
  NcclCalibration calibration;
  std::vector<NcclFitParameter> parameters;
  std::vector<NcclPathFactor> path_factors;  ///< the paths the logs exercise
  std::vector<NcclCaseError> fitted;   ///< per fitted log
  std::vector<NcclCaseError> holdout;  ///< per held-out log
  ErrorStats fit_before, fit_after, holdout_before, holdout_after;  ///< pooled over rows
  int iterations = 0;
  int evaluations = 0;
};

/// Fits `spec` to `fit` and reports the error on `fit` and on `holdout` before and after.
/// Throws InputError when `fit` is empty or a log does not fit the cluster (more GPUs than
/// it can build).
[[nodiscard]] NcclFitReport fit_nccl(const fabric::ClusterSpec& spec, const std::vector<NcclFitCase>& fit,
                                     const std::vector<NcclFitCase>& holdout, network::ModelKind network);

/// Every row's busbw error of `cases` on `spec` with `calibration`.
[[nodiscard]] std::vector<LogComparison> compare_cases(const fabric::ClusterSpec& spec,
                                                       const NcclCalibration& calibration,
                                                       const std::vector<NcclFitCase>& cases, network::ModelKind network);

}  // namespace ctwin::calibration
