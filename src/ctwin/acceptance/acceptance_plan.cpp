#include "ctwin/acceptance/acceptance_plan.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/compute/dtype.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::api {
namespace {

const std::vector<std::string> kKinds = {"p2p", "collective", "gemm", "training", "reliability"};

std::vector<std::string> metrics_of(AcceptanceKind kind) {
  switch (kind) {
    case AcceptanceKind::kP2p: return {"bandwidth", "latency"};
    case AcceptanceKind::kCollective: return {"busbw"};
    case AcceptanceKind::kGemm: return {"tflops"};
    case AcceptanceKind::kTraining: return {"throughput", "linearity", "mfu", "flops_per_watt"};
    case AcceptanceKind::kReliability: return {"mtbf", "mttr", "availability"};
  }
  return {};
}

Tolerance read_tolerance(JsonObjectReader& r, const std::string& metric) {
  Tolerance t;
  t.text = r.string("tolerance");
  const std::string& text = t.text;
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) ++digits;
  const std::string unit = text.substr(digits);
  if (unit.empty()) r.fail("tolerance", "'" + text + "' has no unit (expected e.g. \"10%\" or, for a fraction, \"3pp\")");
  if (unit == "%") {
    t.unit = Tolerance::Unit::kPercent;
  } else if (unit == "pp") {
    t.unit = Tolerance::Unit::kPoints;
    if (metric_unit(metric)[0] != '\0') r.fail("tolerance", "points (pp) apply to fractions only; give " + metric + " a % tolerance");
  } else {
    r.fail("tolerance", "unknown unit '" + unit + "' (expected % or pp)");
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + digits, t.value);
  if (digits == 0 || error != std::errc() || end != text.data() + digits || !std::isfinite(t.value)) {
    r.fail("tolerance", "'" + text + "' is not a number with a unit");
  }
  if (!(t.value >= 0 && t.value < 100)) r.fail("tolerance", "'" + text + "' must be at least 0 and below 100");
  return t;
}

std::vector<std::int64_t> read_nodes(JsonObjectReader& r) {
  const nlohmann::json& list = r.required("nodes");
  if (!list.is_array() || list.empty()) r.fail("nodes", "a list of node counts, e.g. [1, 2, 16, \"all\"]");
  std::vector<std::int64_t> nodes;
  for (const auto& item : list) {
    if (item.is_string() && item.get<std::string>() == "all") {
      nodes.push_back(0);
    } else if (item.is_number_integer() && item.get<std::int64_t>() >= 1 && item.get<std::int64_t>() <= 100'000) {
      nodes.push_back(item.get<std::int64_t>());
    } else {
      r.fail("nodes", "each entry is a node count from 1 to 100000 or \"all\"");
    }
  }
  return nodes;
}

std::string resolve_scenario(const std::string& plan, const std::string& path) {
  const std::filesystem::path beside = std::filesystem::path(plan).parent_path() / path;
  if (path_exists(beside)) return beside.string();
  return resolve_data_path(path).string();
}

AcceptanceTest read_test(JsonObjectReader r, const std::string& plan) {
  AcceptanceTest t;
  t.id = r.string("id");
  if (t.id.empty() || t.id.find_first_of(" ,\t\n\"") != std::string::npos) r.fail("id", "a name without spaces or commas");
  const std::string kind = r.string("kind");
  const auto at = std::find(kKinds.begin(), kKinds.end(), kind);
  if (at == kKinds.end()) r.fail("kind", "unknown test kind '" + kind + "' (expected p2p, collective, gemm, training or reliability)");
  t.kind = static_cast<AcceptanceKind>(at - kKinds.begin());
  t.metric = r.choice("metric", metrics_of(t.kind));
  t.tolerance = read_tolerance(r, t.metric);
  switch (t.kind) {
    case AcceptanceKind::kP2p: {
      const std::string path = r.choice("path", {"same_node", "same_rail", "cross_rail", "cross_su"});
      t.path = path == "same_node" ? PathClass::kSameNode
               : path == "same_rail" ? PathClass::kSameRail
               : path == "cross_rail" ? PathClass::kCrossRail
                                      : PathClass::kCrossSu;
      t.size = r.bytes("size");
      break;
    }
    case AcceptanceKind::kCollective: {
      t.op = collectives::parse_op(r.choice("op", {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce"}));
      t.algorithm = collectives::parse_algorithm(
          r.choice_or("algo", {"auto", "ring", "tree", "nvls", "nvlstree", "hd", "direct", "pat"}, "auto"));
      t.begin = r.bytes("begin");
      t.end = r.bytes("end");
      if (t.end < t.begin) r.fail("end", "must not be below begin");
      t.factor = r.number("factor", 1.01, 1024);
      t.nodes = read_nodes(r);
      break;
    }
    case AcceptanceKind::kGemm: {
      t.m = r.integer("m", 1, 1 << 20);
      t.n = r.integer("n", 1, 1 << 20);
      t.k = r.integer("k", 1, 1 << 20);
      t.dtype = r.string_or("dtype", "bf16");
      compute::Dtype dtype;
      if (!compute::parse_dtype(t.dtype, dtype)) r.fail("dtype", "unknown type '" + t.dtype + "'");
      break;
    }
    case AcceptanceKind::kTraining:
      t.scenario = resolve_scenario(plan, r.string("scenario"));
      t.nodes = read_nodes(r);
      t.set = r.string_list_or_empty("set");
      if (t.metric == "flops_per_watt") {
        t.gpu_power_w = r.number("gpu_power_w", 1, 10'000);
      }
      break;
    case AcceptanceKind::kReliability:
      t.scenario = resolve_scenario(plan, r.string("scenario"));
      t.days = r.number("days", 0.01, 3660);
      t.spares = r.string_or("spares", "5%");
      break;
  }
  r.finish();
  return t;
}

}  // namespace

AcceptancePlan load_acceptance_plan(const std::string& path) {
  const nlohmann::json document = load_json_file(path);
  if (!document.is_object()) throw InputError(path, "", "an acceptance plan is a JSON object");
  JsonObjectReader r(document, path, "");
  AcceptancePlan plan;
  plan.source = path;
  plan.name = r.string("name");
  plan.description = r.string_or("description", "");
  (void)r.optional("sources");
  const nlohmann::json& tests = r.required("tests");
  if (!tests.is_array() || tests.empty()) r.fail("tests", "a non-empty list of tests");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < tests.size(); ++i) {
    const std::string pointer = "/tests/" + std::to_string(i);
    if (!tests[i].is_object()) throw InputError(path, pointer, "a test is a JSON object");
    plan.tests.push_back(read_test(JsonObjectReader(tests[i], path, pointer), path));
    if (!ids.insert(plan.tests.back().id).second) throw InputError(path, pointer + "/id", "'" + plan.tests.back().id + "' is used twice");
  }
  r.finish();
  return plan;
}

const char* to_string(AcceptanceKind kind) { return kKinds[static_cast<std::size_t>(kind)].c_str(); }

const char* to_string(PathClass path) {
  switch (path) {
    case PathClass::kSameNode: return "same_node";
    case PathClass::kSameRail: return "same_rail";
    case PathClass::kCrossRail: return "cross_rail";
    case PathClass::kCrossSu: return "cross_su";
  }
  return "";
}

const char* metric_unit(const std::string& metric) {
  if (metric == "bandwidth" || metric == "busbw") return "GB/s";
  if (metric == "latency") return "us";
  if (metric == "tflops") return "TFLOP/s";
  if (metric == "throughput") return "tokens/s/GPU";
  if (metric == "flops_per_watt") return "GFLOP/s/W";
  if (metric == "mtbf" || metric == "mttr") return "h";
  return "";
}

bool higher_is_better(const std::string& metric) { return metric != "latency" && metric != "mttr"; }

double pass_threshold(double expected, const std::string& metric, const Tolerance& tolerance) {
  const double sign = higher_is_better(metric) ? -1 : 1;
  if (tolerance.unit == Tolerance::Unit::kPoints) return expected + sign * tolerance.value / 100;
  return expected * (1 + sign * tolerance.value / 100);
}

}  // namespace ctwin::api
