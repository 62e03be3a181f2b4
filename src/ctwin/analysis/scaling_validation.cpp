#include "ctwin/analysis/scaling_validation.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/parallel_for.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::analysis {
namespace {

namespace fs = std::filesystem;

std::vector<std::int64_t> read_sizes(JsonObjectReader& reader) {
  const nlohmann::json& list = reader.required("gpus");
  if (!list.is_array() || list.empty()) reader.fail("gpus", "expected a non-empty array of GPU counts");
  std::vector<std::int64_t> sizes;
  for (const auto& item : list) {
    if (!item.is_number_integer() || item.get<std::int64_t>() < 1) reader.fail("gpus", "GPU counts are positive integers");
    if (!sizes.empty() && item.get<std::int64_t>() <= sizes.back()) reader.fail("gpus", "sizes must be ascending");
    sizes.push_back(item.get<std::int64_t>());
  }
  return sizes;
}

MeasuredMfu read_measured(const nlohmann::json& entry, const std::string& file, const std::string& pointer) {
  JsonObjectReader reader(entry, file, pointer);
  MeasuredMfu m;
  m.run = reader.string("run");
  m.gpus = reader.integer("gpus", 1, std::int64_t{1} << 24);
  // An MFU above 1 is a percentage typed as a fraction: refuse it rather than compare nonsense.
  m.mfu = reader.number("mfu", 0, 1);
  if (!(m.mfu > 0)) reader.fail("mfu", "must be positive");
  reader.finish();
  return m;
}

ScalingCase read_case(const nlohmann::json& entry, const std::string& file, const std::string& pointer,
                      const fs::path& dir, const fs::path& repo_root) {
  JsonObjectReader reader(entry, file, pointer);
  ScalingCase c;
  c.id = reader.string("id");
  c.group = reader.string("group");
  c.source = reader.string("source");
  const std::string scenario = reader.string("scenario");
  c.scenario = is_file_path(dir / scenario) ? dir / scenario : repo_root / scenario;
  if (!is_file_path(c.scenario)) reader.fail("scenario", "no file '" + scenario + "'");
  c.gpus = read_sizes(reader);
  c.weak = reader.boolean_or("weak", false);
  const nlohmann::json& measured = reader.required("measured");
  if (!measured.is_array() || measured.size() < 2) {
    reader.fail("measured", "a trend needs at least two measured points {run, gpus, mfu}");
  }
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const std::string at = reader.pointer_to("measured") + "/" + std::to_string(i);
    c.measured.push_back(read_measured(measured[i], file, at));
    const MeasuredMfu& m = c.measured.back();
    if (std::find(c.gpus.begin(), c.gpus.end(), m.gpus) == c.gpus.end()) {
      throw InputError(file, at + "/gpus", std::to_string(m.gpus) + " GPUs is not among the sizes in gpus");
    }
    if (i > 0 && m.gpus <= c.measured[i - 1].gpus) throw InputError(file, at + "/gpus", "measured points must be ascending");
  }
  c.mfu_rounding = reader.number("mfu_rounding", 0, 0.1);
  if (c.mfu_rounding >= c.measured.front().mfu) reader.fail("mfu_rounding", "must be smaller than every measured MFU");
  reader.finish();
  return c;
}

}  // namespace

ScalingCases load_scaling_cases(const fs::path& path, const fs::path& repo_root) {
  const std::string file = path.string();
  const nlohmann::json document = load_json_file(path);
  if (!document.is_object()) throw InputError(file, "", "a scaling cases file is a JSON object");
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  JsonObjectReader reader(document, file, "");
  (void)reader.string("description");
  ScalingCases out;
  out.runs_file = reader.string("runs_file");
  const nlohmann::json& studies = reader.required("studies");
  if (!studies.is_array() || studies.empty()) reader.fail("studies", "expected a non-empty array of studies");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < studies.size(); ++i) {
    const std::string pointer = "/studies/" + std::to_string(i);
    out.studies.push_back(read_case(studies[i], file, pointer, dir, repo_root));
    if (!ids.insert(out.studies.back().id).second) {
      throw InputError(file, pointer + "/id", "study '" + out.studies.back().id + "' appears more than once");
    }
  }
  reader.finish();
  return out;
}

ScalingComparison validate_scaling(const ScalingCase& scaling_case, const fs::path& repo_root,
                                   const std::optional<network::ModelKind>& network, const std::vector<std::string>& overrides) {
  ScalingQuery query;
  query.scenario = scaling_case.scenario;
  query.repo_root = repo_root;
  if (network) query.overrides.push_back("network=" + std::string(network::name(*network)));
  query.overrides.insert(query.overrides.end(), overrides.begin(), overrides.end());
  query.gpus = scaling_case.gpus;
  // A published run states its batch at each size: nothing is rounded.
  query.batch = scaling_case.weak ? BatchPolicy::kPerReplica : BatchPolicy::kFixed;
  query.jobs = default_jobs();

  ScalingComparison out;
  out.scaling_case = &scaling_case;
  out.study = run_scaling(query);
  for (const MeasuredMfu& m : scaling_case.measured) {
    const auto point = std::find_if(out.study.points.begin(), out.study.points.end(),
                                    [&](const ScalingPoint& p) { return p.gpus == m.gpus; });
    CTWIN_ASSERT(point != out.study.points.end(), "the loader checked every measured size is among the sizes run");
    if (!point->invalid.empty()) {
      throw InputError(scaling_case.scenario.string(), "",
                       "study " + scaling_case.id + ": the measured size " + std::to_string(m.gpus) +
                           " GPUs cannot run the split: " + point->invalid);
    }
    out.points.push_back({m, point->report.mfu, point->report.mfu / m.mfu - 1});
  }
  const MeasuredMfu& first = scaling_case.measured.front();
  const MeasuredMfu& last = scaling_case.measured.back();
  const double r = scaling_case.mfu_rounding;
  out.measured_ratio = last.mfu / first.mfu;
  out.measured_ratio_low = (last.mfu - r) / (first.mfu + r);
  out.measured_ratio_high = (last.mfu + r) / (first.mfu - r);
  out.predicted_ratio = out.points.back().predicted / out.points.front().predicted;
  CTWIN_ASSERT(std::isfinite(out.predicted_ratio), "a simulated step has a finite, positive MFU");
  return out;
}

}  // namespace ctwin::analysis
