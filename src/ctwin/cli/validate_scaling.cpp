// ctwin validate --scaling: published scaling runs replayed by the scaling study (library:
// analysis/scaling_validation). This file only lays the comparison out.

#include "ctwin/cli/validate_scaling.hpp"

#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "ctwin/api/public_analysis.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/comparison_output.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {
namespace {

using analysis::ScalingComparison;

/// Measured MFU by GPU count, for the sizes the source published.
std::map<std::int64_t, const analysis::MfuComparison*> measured_by_size(const ScalingComparison& c) {
  std::map<std::int64_t, const analysis::MfuComparison*> out;
  for (const auto& p : c.points) out[p.measured.gpus] = &p;
  return out;
}

std::string trend_sentence(const ScalingComparison& c) {
  const auto& first = c.points.front().measured;
  const auto& last = c.points.back().measured;
  return "MFU(" + std::to_string(last.gpus) + ") / MFU(" + std::to_string(first.gpus) + "): measured " +
         fixed(c.measured_ratio, 3) + " (" + fixed(c.measured_ratio_low, 3) + " to " + fixed(c.measured_ratio_high, 3) +
         " within the source's rounding), predicted " + fixed(c.predicted_ratio, 3) + ": trend " +
         (c.trend_reproduced() ? "reproduced" : "NOT reproduced");
}

void print_table(const std::vector<ScalingComparison>& results, const std::string& network, std::ostream& out) {
  out << "# ctwin validate --scaling: predicted vs published MFU over a scaling run, network " << network
      << "; error = predicted / measured - 1\n";
  for (const auto& c : results) {
    const auto& study = *c.scaling_case;
    out << "\n" << study.id << ": " << c.study.model << ", " << (study.weak ? "weak" : "strong") << " scaling ("
        << study.source << ")\n";
    Table table({"gpus", "dp", "step s", "MFU", "measured", "error", "comm %", "bubble %", "linearity", "fits"});
    const auto measured = measured_by_size(c);
    for (const auto& p : c.study.points) {
      if (!p.invalid.empty()) {
        table.add_row({std::to_string(p.gpus), "-", "-", "-", "-", "-", "-", "-", "-", "invalid: " + p.invalid});
        continue;
      }
      const auto& r = p.report;
      const auto m = measured.find(p.gpus);
      const bool has = m != measured.end();
      table.add_row({std::to_string(p.gpus), std::to_string(r.dp), fixed(r.step_time_s, 3), fixed(100 * r.mfu, 1) + " %",
                     has ? fixed(100 * m->second->measured.mfu, 1) + " %" : "",
                     has ? signed_percent(m->second->error) : "", fixed(100 * r.comm_ratio, 1),
                     fixed(100 * r.breakdown.bubble_s / r.step_time_s, 1), fixed(p.linearity, 3),
                     r.fits_memory ? "yes" : "NO"});
    }
    table.print(out, Format::kTable, "  ");
    out << "  " << trend_sentence(c) << "\n";
  }
}

}  // namespace

api::ScalingValidation evaluate_scaling_validation(const ScalingValidateOptions& options) {
  return api::validate_scaling({options.cases, step_network(options.network), options.overrides});
}

void print_scaling_validation(const api::ScalingValidation& validation, const std::string& network, Format format) {
  const auto& results = validation.results;
  if (format == Format::kJson) {
    std::cout << json_text(api::scaling_validation_json(validation), 2) << '\n';
  } else if (format == Format::kCsv) {
    comparison_table(api::scaling_csv_columns(), api::scaling_size_rows(validation)).print(std::cout, Format::kCsv);
  } else {
    print_table(results, network, std::cout);
  }
}

}  // namespace ctwin::cli
