#include "ctwin/calibration/nccl_validation.hpp"

#include <map>
#include <memory>

#include "ctwin/calibration/nccl_fit.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::calibration {
namespace {

NcclFitCase case_of(const NcclSetup& setup) {
  NcclFitCase c;
  c.name = setup.id;
  c.log = read_nccl_log(setup.log, setup.op);
  c.op = setup.op;
  c.gpus = setup.ranks;
  c.algorithm = forced_algorithm(setup);
  c.protocol = forced_protocol(setup);
  return c;
}

NcclFitCase with_rows(NcclFitCase c, int parity) {
  std::vector<NcclRow> kept;
  for (std::size_t i = 0; i < c.log.rows.size(); ++i) {
    if (static_cast<int>(i % 2) == parity) kept.push_back(c.log.rows[i]);
  }
  c.log.rows = std::move(kept);
  return c;
}

// The log a user would take first: one its source does not flag as degraded (calibration learns
// what it is shown, and a degraded anchor teaches a healthy cluster's other logs its faults), the
// widest all_reduce, then the longest sweep.
const NcclSetup* anchor_of(const std::vector<const NcclSetup*>& members) {
  const NcclSetup* best = nullptr;
  for (const NcclSetup* s : members) {
    const auto key = [](const NcclSetup* x) {
      return std::tuple(x->role == "check", x->op == collectives::Op::kAllReduce, x->ranks,
                        x->dtype == "float" || x->dtype == "half");
    };
    if (best == nullptr || key(s) > key(best)) best = s;
  }
  return best;
}

}  // namespace

std::vector<SetupValidation> validate_setups(const std::vector<NcclSetup>& manifest,
                                             const std::vector<const NcclSetup*>& selected,
                                             const ValidationOptions& options) {
  std::map<std::string, fabric::ClusterSpec> specs;
  const auto spec_of = [&](const NcclSetup& setup) -> const fabric::ClusterSpec& {
    auto found = specs.find(*setup.topology);
    if (found == specs.end()) {
      found = specs.emplace(*setup.topology, options.load_topology(*setup.topology)).first;
    }
    return found->second;
  };

  std::vector<SetupValidation> results;
  for (const NcclSetup* setup : selected) {
    SetupValidation result;
    result.setup = setup;
    if (!setup->topology) {
      result.skipped = "no bundled topology models this hardware";
    } else {
      const auto& spec = spec_of(*setup);
      if (setup->nodes > 1 && spec.server.gpus < setup->gpus_per_node) {
        result.skipped = "the topology's nodes are smaller than the measured ones";
      } else {
        result.uncalibrated =
            compare_cases(spec, NcclCalibration::defaults_of(spec), {case_of(*setup)}, options.network).front();
      }
    }
    results.push_back(std::move(result));
  }
  if (!options.calibrate) return results;

  // Fit once per cluster, on data of that cluster other than what is judged.
  std::map<std::string, std::vector<const NcclSetup*>> clusters;
  for (const NcclSetup& setup : manifest) {
    if (setup.topology) clusters[setup.cluster].push_back(&setup);
  }
  std::map<std::string, NcclCalibration> fitted;
  for (SetupValidation& result : results) {
    if (!result.skipped.empty()) continue;
    const NcclSetup& setup = *result.setup;
    const auto& members = clusters[setup.cluster];
    const auto& spec = spec_of(setup);
    if (members.size() == 1) {
      const NcclFitCase whole = case_of(setup);
      const auto report = fit_nccl(spec, {with_rows(whole, 0)}, {}, options.network);
      result.calibrated = compare_cases(spec, report.calibration, {with_rows(whole, 1)}, options.network).front();
      result.calibrated_on = "alternate sizes of this log";
      continue;
    }
    const NcclSetup* anchor = anchor_of(members);
    result.calibrated_on = anchor->id;
    if (anchor == &setup) {
      result.is_anchor = true;
      continue;
    }
    auto found = fitted.find(setup.cluster);
    if (found == fitted.end()) {
      found = fitted.emplace(setup.cluster, fit_nccl(spec, {case_of(*anchor)}, {}, options.network).calibration).first;
    }
    result.calibrated = compare_cases(spec, found->second, {case_of(setup)}, options.network).front();
  }
  return results;
}

}  // namespace ctwin::calibration
