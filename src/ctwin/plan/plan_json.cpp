// The JSON of a plan (plan/plan.hpp), and the way back for merging shards: every value a merged
// plan prints is read from the shards' JSON, so it must carry them exactly (doubles are written
// shortest-round-trip by nlohmann::json).

#include <initializer_list>
#include <optional>
#include <set>
#include <utility>

#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/error_band.hpp"
#include "ctwin/plan/plan.hpp"
#include "ctwin/api/shard.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"

namespace ctwin::api {
namespace {

using nlohmann::json;

using replay::Figure;
// A candidate's headline figures; its bubble is in breakdown_s with the other parts.
constexpr replay::FigureSet kPlanScoreFigures{Figure::kStepTime, Figure::kTokensPerS, Figure::kMfu,
                                              Figure::kModelTflopsPerGpu, Figure::kMemoryTotal};
constexpr const char* kPlanShardDocument = "a shard of `ctwin plan --shard`";

json score_json(const PlanScore& s) {
  json out = replay::to_json(s, kPlanScoreFigures);
  json parts = json::object();
  for (const auto& [part, seconds] : plan_score_parts(s)) parts[part] = seconds;
  out["breakdown_s"] = std::move(parts);
  return out;
}

json split_json(const PlanEntry& e) {
  const auto& s = e.split;
  return {{"tp", s.tp},
          {"pp", s.pp},
          {"vpp", s.vpp},
          {"cp", s.cp},
          {"ep", s.ep},
          {"dp", e.dp},
          {"sequence_parallel", s.sequence_parallel},
          {"pipeline_accounting", s.embedding_in_split},
          {"schedule", workload::schedule_name(s.schedule)},
          {"micro_batch", s.micro_batch},
          {"micro_batches", e.micro_batches},
          {"recompute", workload::recompute_name(s.recompute)},
          {"zero", s.zero},
          {"distributed_optimizer", s.distributed_optimizer}};
}

json entry_json(const PlanEntry& e, std::size_t rank) {
  json out = {{"rank", rank}, {"index", e.index}, {"split", split_json(e)}};
  if (e.pool) {  // a pool's assignment (plan_pool.hpp): only on such plans, so that the others keep their bytes
    out["pool"] = {{"order", e.pool->order}, {"balance", e.pool->balance}, {"layers", e.pool->layers},
                   {"assignment", e.assignment}};
    if (!e.pool->dp_micro_batches.empty()) out["pool"]["dp_micro_batches"] = e.pool->dp_micro_batches;
  }
  if (!e.invalid.empty()) {
    out["invalid"] = e.invalid;
    return out;
  }
  out["analytical_rank"] = e.analytical_rank;
  out["analytical"] = score_json(e.analytical);
  out["flow"] = e.flow ? score_json(*e.flow) : json(nullptr);
  json why = json::array();
  for (const auto& d : e.why) why.push_back({{"part", d.part}, {"delta_s", d.delta_s}});
  out["why"] = why;
  return out;
}

analysis::ErrorBandKey on_network(analysis::ErrorBandKey key, const char* network) {
  key.network = network;
  return key;
}


// ---- reading back (merge) ----

const json& plan_shard_field(const json& object, const char* key, const std::string& source) {
  if (!object.is_object() || !object.contains(key)) {
    throw InputError(source, "", "not a shard of `ctwin plan --shard` (no '" + std::string(key) + "')");
  }
  return object[key];
}

PlanScore read_score(const json& j, const std::string& source, const std::string& at) {
  PlanScore s;
  static_cast<replay::StepFigures&>(s) = replay::figures_from_json(j, kPlanScoreFigures, source, at, kPlanShardDocument);
  const json& b = plan_shard_field(j, "breakdown_s", source);
  s.compute_s = plan_shard_field(b, "compute", source).get<double>();
  s.recompute_s = plan_shard_field(b, "recompute", source).get<double>();
  s.bubble_s = plan_shard_field(b, "bubble", source).get<double>();
  s.exposed_s.tp = plan_shard_field(b, "exposed_tp", source).get<double>();
  s.exposed_s.pp = plan_shard_field(b, "exposed_pp", source).get<double>();
  s.exposed_s.dp = plan_shard_field(b, "exposed_dp", source).get<double>();
  s.exposed_s.cp = plan_shard_field(b, "exposed_cp", source).get<double>();
  s.exposed_s.ep = plan_shard_field(b, "exposed_ep", source).get<double>();
  s.optimizer_s = plan_shard_field(b, "optimizer", source).get<double>();
  return s;
}

PlanEntry read_entry(const json& j, const std::string& source, const std::string& at) {
  PlanEntry e;
  e.index = plan_shard_field(j, "index", source).get<std::int64_t>();
  const json& s = plan_shard_field(j, "split", source);
  e.split.tp = plan_shard_field(s, "tp", source).get<std::int64_t>();
  e.split.pp = plan_shard_field(s, "pp", source).get<std::int64_t>();
  e.split.vpp = plan_shard_field(s, "vpp", source).get<std::int64_t>();
  e.split.cp = plan_shard_field(s, "cp", source).get<std::int64_t>();
  e.split.ep = plan_shard_field(s, "ep", source).get<std::int64_t>();
  e.dp = plan_shard_field(s, "dp", source).get<std::int64_t>();
  e.split.sequence_parallel = plan_shard_field(s, "sequence_parallel", source).get<bool>();
  e.split.embedding_in_split = e.split.loss_in_split = plan_shard_field(s, "pipeline_accounting", source).get<bool>();
  const auto schedule = workload::schedule_from_name(plan_shard_field(s, "schedule", source).get<std::string>());
  const auto recompute = workload::recompute_from_name(plan_shard_field(s, "recompute", source).get<std::string>());
  if (!schedule || !recompute) throw InputError(source, "", "a result has an unknown schedule or recompute");
  e.split.schedule = *schedule;
  e.split.recompute = *recompute;
  e.split.micro_batch = plan_shard_field(s, "micro_batch", source).get<std::int64_t>();
  e.micro_batches = plan_shard_field(s, "micro_batches", source).get<std::int64_t>();
  e.split.zero = plan_shard_field(s, "zero", source).get<int>();
  e.split.distributed_optimizer = plan_shard_field(s, "distributed_optimizer", source).get<bool>();
  if (j.contains("pool")) {
    const json& p = j["pool"];
    e.pool = PlanPoolChoice{plan_shard_field(p, "order", source).get<std::vector<std::string>>(),
                            plan_shard_field(p, "balance", source).get<std::string>(),
                            plan_shard_field(p, "layers", source).get<std::vector<std::int64_t>>()};
    e.assignment = plan_shard_field(p, "assignment", source).get<std::size_t>();
    if (p.contains("dp_micro_batches")) {
      e.pool->dp_micro_batches = plan_shard_field(p, "dp_micro_batches", source).get<std::vector<std::int64_t>>();
    }
    e.split.pipeline_layout = e.pool->layers;
  }
  if (j.contains("invalid")) {
    e.invalid = j["invalid"].get<std::string>();
    return e;
  }
  e.analytical = read_score(plan_shard_field(j, "analytical", source), source, at + "/analytical");
  if (const json& flow = plan_shard_field(j, "flow", source); !flow.is_null()) e.flow = read_score(flow, source, at + "/flow");
  return e;
}

// A merged result, checked against the plan it belongs to and as a run's report is: an edited
// shard printed a step of -5 s and an MFU of 750 % (issue 36). The headline figures are checked
// as they are read (replay::figures_from_json), the parts here.
void check_score(const PlanScore& s, const std::string& source, const std::string& at) {
  for (const auto& [name, value] : plan_score_parts(s)) {
    replay::check_reported_figure(value, 0, s.step_time_s, false, source, at + "/breakdown_s/" + name);
  }
}

void check_entry(const PlanEntry& e, const PlanResult& plan, const std::string& source, const std::string& at) {
  const auto& s = e.split;
  if (e.index < 0 || e.index >= plan.survivors) {
    throw InputError(source, at + "/index", std::to_string(e.index) + " is not a candidate of a plan of " +
                                                std::to_string(plan.survivors) + " survivors");
  }
  for (const std::int64_t n : {s.tp, s.pp, s.vpp, s.cp, s.ep, e.dp, s.micro_batch, e.micro_batches}) {
    if (n < 1) throw InputError(source, at + "/split", "a split's sizes are positive counts");
  }
  if (s.zero < 0 || s.zero > 3) throw InputError(source, at + "/split/zero", "ZeRO stages are 0 to 3");
  // Products of counts read from a file: checked, never wrapped (nothing when one overflows).
  const auto product = [](std::initializer_list<std::int64_t> factors) {
    std::optional<std::int64_t> out = 1;
    for (const std::int64_t f : factors) out = out ? limits::checked_product(*out, f) : std::nullopt;
    return out;
  };
  const auto ranks = product({s.tp, s.pp, s.cp, e.dp});
  if (!ranks || *ranks != plan.gpus) {
    throw InputError(source, at + "/split", "tp·pp·cp·dp is not the plan's " + std::to_string(plan.gpus) + " GPUs");
  }
  const auto batch = product({s.micro_batch, e.micro_batches, e.dp});
  if (!batch || *batch != plan.global_batch) {
    throw InputError(source, at + "/split", "micro_batch·micro_batches·dp is not the plan's global batch of " +
                                                std::to_string(plan.global_batch));
  }
  if (!e.invalid.empty()) return;
  check_score(e.analytical, source, at + "/analytical");
  if (e.flow) check_score(*e.flow, source, at + "/flow");
}

}  // namespace

std::string calibration_note(const PlanHeader& h) {
  const PlanCalibration& c = h.calibration;
  if (c.compute && c.network) return "";
  std::string note = "uncalibrated: ";
  if (!c.compute) {
    note += "the " + h.gpu +
            " profile has no training_time_scale fitted on measured layers or runs, and uncalibrated steps come "
            "out faster than published runs (docs/validation.md), so step times, tokens/s and MFU are optimistic "
            "estimates";
  }
  if (!c.network) {
    note += std::string(c.compute ? "" : "; ") + "collectives use the cluster's default NCCL efficiencies, not a fit "
                                                 "of its nccl-tests logs";
  }
  return note + ". The order of the splits is the result; `ctwin calibrate` makes the figures the cluster's.";
}

json plan_header_json(const PlanHeader& h) {
  json calibrated = {{"compute", h.calibration.compute}, {"network", h.calibration.network}};
  if (h.calibration.compute) calibrated["compute_source"] = h.calibration.compute_source;
  calibrated["note"] = calibration_note(h);
  json out = {{"model", h.model},       {"cluster", h.cluster},
              {"gpu", h.gpu},           {"gpus", h.gpus},
              {"global_batch", h.global_batch}, {"seq_len", h.seq_len},
              {"objective", plan_objective_name(h.objective)}, {"fixes", h.fixes},
              {"memory_margin", h.memory_margin}, {"calibrated", calibrated},
              {"warnings", build_warnings_json(h.warnings)}, {"enumerated", h.enumerated}, {"survivors", h.survivors}};
  if (!h.placement.is_null()) out["placement"] = h.placement;  // only when named: other plans keep their bytes
  if (h.pool_assignments > 0) out["pool"] = {{"groups", h.pool_groups}, {"assignments", h.pool_assignments}};
  return out;
}

json plan_json(const PlanResult& result, std::size_t top) {
  RuleCounts rules = result.rules;
  std::int64_t refused = 0;
  const PlanEntry* first_refused = nullptr;
  for (const auto& e : result.entries) {
    if (e.invalid.empty()) continue;
    ++refused;
    if (first_refused == nullptr || e.index < first_refused->index) first_refused = &e;
  }
  if (refused > 0) rules.add("replay", refused, first_refused->invalid);
  json rule_list = json::array();
  for (const auto& r : rules.rules()) {
    rule_list.push_back({{"rule", r.rule}, {"description", r.description}, {"removed", r.removed}, {"example", r.example}});
  }
  const analysis::ErrorBands bands = load_bundled_error_bands();
  const PlanEntry* best = result.entries.empty() || !result.entries.front().invalid.empty() ? nullptr : &result.entries.front();
  json results = json::array();
  for (std::size_t i = 0; i < result.entries.size(); ++i) {
    const PlanEntry& e = result.entries[i];
    if (top > 0 && (i >= top || !e.invalid.empty())) break;
    results.push_back(plan_entry_banded_json(e, i + 1, i > 0 ? best : nullptr, result, bands));
  }
  json out = plan_header_json(result);
  out["error_band"] = plan_error_band_classes_json(result, bands);
  out["flow_top"] = result.flow_top;
  out["rules"] = rule_list;
  out["search"] = {{"exhaustive", result.exhaustive}, {"bounded", result.bounded}, {"replayed", result.replayed}};
  // Only when approximate, so that exact plans keep their bytes.
  if (result.flow_sample != replay::FlowSample::kFull) out["flow_sample"] = replay::flow_sample_name(result.flow_sample);
  if (result.shard_count > 1) {
    out["shard"] = {{"index", result.shard_index + 1},
                    {"count", result.shard_count},
                    {"scenario", result.scenario_fingerprint}};
  }
  out["results"] = results;
  return out;
}

json plan_entry_json(const PlanEntry& entry, std::size_t rank) { return entry_json(entry, rank); }

json plan_entry_banded_json(const PlanEntry& entry, std::size_t rank, const PlanEntry* best, const PlanHeader& header,
                            const analysis::ErrorBands& bands) {
  json out = entry_json(entry, rank);
  if (!entry.invalid.empty()) return out;
  const auto band_on = [&](const char* network) { return analysis::band_for(bands, on_network(header.error_band, network)); };
  out["analytical"]["error_band"] = error_band_intervals_json(band_on("analytical"), entry.analytical);
  if (entry.flow) out["flow"]["error_band"] = error_band_intervals_json(band_on("flow"), *entry.flow);
  if (best != nullptr) out["distinguishable_from_best"] = distinguishable_from_best(entry, *best, header.objective, bands, header.error_band);
  return out;
}

json plan_error_band_classes_json(const PlanHeader& header, const analysis::ErrorBands& bands) {
  return {{"analytical", error_band_class_json(analysis::band_for(bands, on_network(header.error_band, "analytical")))},
          {"flow", error_band_class_json(analysis::band_for(bands, on_network(header.error_band, "flow")))}};
}

bool distinguishable_from_best(const PlanEntry& entry, const PlanEntry& best, PlanObjective objective,
                               const analysis::ErrorBands& bands, const analysis::ErrorBandKey& key) {
  const bool flow = entry.flow && best.flow;  // both on one network, as the final order compares them
  const analysis::ErrorBand band = analysis::band_for(bands, on_network(key, flow ? "flow" : "analytical"));
  const PlanScore& mine = flow ? *entry.flow : entry.analytical;
  const PlanScore& theirs = flow ? *best.flow : best.analytical;
  const analysis::Interval a = analysis::throughput_interval(objective_value(mine, objective), *band.from);
  const analysis::Interval b = analysis::throughput_interval(objective_value(theirs, objective), *band.from);
  return a.high < b.low || b.high < a.low;
}

PlanResult merge_plans(const std::vector<json>& shards, const std::vector<std::string>& sources) {
  if (shards.empty()) throw InputError("--merge", "", "no files to merge");
  PlanResult merged;
  std::set<std::size_t> seen;
  std::size_t count = 0;
  std::set<std::int64_t> indices;
  for (std::size_t f = 0; f < shards.size(); ++f) {
    const json& j = shards[f];
    const std::string& source = sources.at(f);
    // A field of the wrong type (nlohmann's type_error) is a damaged shard, not ctwin's error.
    try {
      const json& shard = plan_shard_field(j, "shard", source);
      const auto index = plan_shard_field(shard, "index", source).get<std::size_t>();
      const auto n = plan_shard_field(shard, "count", source).get<std::size_t>();
      const auto scenario = plan_shard_field(shard, "scenario", source).get<std::string>();
      json header = j;
      header.erase("results");
      header.erase("shard");
      header.erase("rules");
      header.erase("search");
      json first_header = shards.front();
      first_header.erase("results");
      first_header.erase("shard");
      first_header.erase("rules");
      first_header.erase("search");
      if (f == 0) {
        count = n;
        merged.scenario_fingerprint = scenario;
        merged.model = plan_shard_field(j, "model", source).get<std::string>();
        merged.cluster = plan_shard_field(j, "cluster", source).get<std::string>();
        merged.gpu = plan_shard_field(j, "gpu", source).get<std::string>();
        merged.gpus = plan_shard_field(j, "gpus", source).get<std::int64_t>();
        merged.global_batch = plan_shard_field(j, "global_batch", source).get<std::int64_t>();
        merged.seq_len = plan_shard_field(j, "seq_len", source).get<std::int64_t>();
        merged.objective = parse_plan_objective(plan_shard_field(j, "objective", source).get<std::string>());
        merged.flow_top = plan_shard_field(j, "flow_top", source).get<std::size_t>();
        if (j.contains("flow_sample")) {
          merged.flow_sample = replay::parse_flow_sample(plan_shard_field(j, "flow_sample", source).get<std::string>(), source);
        }
        merged.fixes = plan_shard_field(j, "fixes", source).get<std::vector<std::string>>();
        if (j.contains("placement")) merged.placement = j["placement"];
        if (j.contains("pool")) {
          const json& p = j["pool"];
          merged.pool_groups = plan_shard_field(p, "groups", source).get<std::vector<std::string>>();
          merged.pool_assignments = plan_shard_field(p, "assignments", source).get<std::int64_t>();
        }
        // Shards written before the margin and the calibration were recorded have neither.
        if (j.contains("memory_margin")) merged.memory_margin = j["memory_margin"].get<double>();
        if (j.contains("calibrated")) {
          const json& c = j["calibrated"];
          merged.calibration.compute = plan_shard_field(c, "compute", source).get<bool>();
          merged.calibration.network = plan_shard_field(c, "network", source).get<bool>();
          if (c.contains("compute_source")) merged.calibration.compute_source = c["compute_source"].get<std::string>();
        }
        // Shards written before the plan carried its error bands take the class pooled over GPU families.
        if (j.contains("error_band")) {
          const json& c = plan_shard_field(plan_shard_field(plan_shard_field(j, "error_band", source), "analytical", source), "class", source);
          merged.error_band.moe = plan_shard_field(c, "model", source).get<std::string>() == "moe";
          merged.error_band.calibrated = plan_shard_field(c, "calibrated", source).get<bool>();
          merged.error_band.gpu_family = plan_shard_field(c, "gpu_family", source).get<std::string>();
          merged.error_band.network = "analytical";
        }
        // Shards written before the plan carried its build's warnings have none to give.
        if (j.contains("warnings")) merged.warnings = read_build_warnings_json(j["warnings"], source, "/warnings");
        merged.enumerated = plan_shard_field(j, "enumerated", source).get<std::int64_t>();
        merged.survivors = plan_shard_field(j, "survivors", source).get<std::int64_t>();
        for (const auto& r : plan_shard_field(j, "rules", source)) {
          const std::string rule = plan_shard_field(r, "rule", source).get<std::string>();
          if (rule == "replay") continue;  // recounted from the merged results
          merged.rules.add(rule, plan_shard_field(r, "removed", source).get<std::int64_t>(), plan_shard_field(r, "example", source).get<std::string>());
        }
      } else if (scenario != merged.scenario_fingerprint) {
        throw InputError(source, "/shard/scenario",
                         "is a shard of another scenario than " + sources.front() + " (its document or the changes made to it differ)");
      } else if (header != first_header || n != count) {
        throw InputError(source, "", "is a shard of another plan than " + sources.front() +
                                         " (model, GPUs, batch, objective, --fix, --placement, --flow-top and shard count must match)");
      }
      if (index < 1 || index > n || !seen.insert(index).second) {
        throw InputError(source, "/shard/index", "shard " + std::to_string(index) + "/" + std::to_string(n) +
                                                      " is given twice or is out of range");
      }
      if (j.contains("search")) {  // how the shard searched: the merged plan says what they did together
        const json& search = j["search"];
        merged.exhaustive = merged.exhaustive && plan_shard_field(search, "exhaustive", source).get<bool>();
        merged.bounded += plan_shard_field(search, "bounded", source).get<std::int64_t>();
        merged.replayed += plan_shard_field(search, "replayed", source).get<std::int64_t>();
      }
      if (f == 0 && (merged.gpus < 1 || merged.gpus > limits::kMaxGpus || merged.global_batch < 1 || merged.seq_len < 1 ||
                     merged.survivors < 0 || merged.enumerated < merged.survivors)) {
        throw InputError(source, "", "its GPUs, batch, sequence or candidate counts are not a plan's");
      }
      const json& results = plan_shard_field(j, "results", source);
      for (std::size_t r = 0; r < results.size(); ++r) {
        const std::string at = "/results/" + std::to_string(r);
        PlanEntry entry = read_entry(results[r], source, at);
        check_entry(entry, merged, source, at);
        if (!indices.insert(entry.index).second) {
          throw InputError(source, at + "/index", "candidate " + std::to_string(entry.index) + " is in more than one result");
        }
        merged.entries.push_back(std::move(entry));
      }
    } catch (const json::exception& e) {
      const std::string what = e.what();
      throw InputError(source, "", "not a shard of `ctwin plan --shard`: " + what.substr(what.find("] ") + 2));
    }
  }
  if (seen.size() != count) {
    throw InputError("--merge", "", "got " + std::to_string(seen.size()) + " of " + std::to_string(count) + " shards");
  }
  // Survivor index order first, as the one-machine run holds them before ranking.
  std::stable_sort(merged.entries.begin(), merged.entries.end(),
                   [](const PlanEntry& a, const PlanEntry& b) { return a.index < b.index; });
  finish_plan(merged);
  return merged;
}

}  // namespace ctwin::api
