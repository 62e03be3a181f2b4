#include "ctwin/replay/layer_times.hpp"

#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/op_graph.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {
namespace {

std::string bundled_or_path(const std::string& name, const char* folder) {
  const bool bare = name.find('/') == std::string::npos && !name.ends_with(".json");
  return bare ? std::string(folder) + "/" + name + ".json" : name;
}

// A one-rank scenario around the layer: the cluster only has to hold tp GPUs, and its
// collectives are free since only compute kernels are summed.
nlohmann::json layer_scenario(const LayerQuery& q) {
  nlohmann::json scenario = {
      {"model", bundled_or_path(q.model, "models/llm")},
      {"cluster", "topologies/dgx-h100-superpod.json"},
      {"gpus", q.tp},
      {"training",
       {{"seq_len", q.seq_len}, {"global_batch", q.micro_batch}, {"micro_batch", q.micro_batch},
        {"precision", q.precision}, {"attention", q.attention}}},
      {"parallel",
       {{"tp", q.tp}, {"pp", 1}, {"vpp", 1}, {"cp", 1}, {"ep", 1}, {"dp", 1}, {"sequence_parallel", q.tp > 1},
        {"distributed_optimizer", false}, {"zero", 0}, {"recompute", q.recompute}, {"schedule", "1f1b"}}},
      {"network", "analytical"},
      {"gpu", bundled_or_path(q.gpu, "models/gpus")},
  };
  if (!q.stack.empty()) scenario["stack"] = q.stack;
  return scenario;
}

void add(std::vector<KernelTime>& kernels, std::map<std::string, std::size_t>& index, const OpNode& op, bool backward) {
  if (op.stream != Stream::kCompute) return;
  const auto [at, added] = index.try_emplace(op.name, kernels.size());
  if (added) kernels.push_back({op.name, 0, 0});
  (backward ? kernels[at->second].backward_us : kernels[at->second].forward_us) += op.duration.seconds() * 1e6;
}

}  // namespace

LayerPrediction predict_layer(const LayerQuery& query, const std::filesystem::path& repo_root) {
  // The flags, checked against the range policy before they become a scenario's fields.
  if (query.seq_len < 1 || query.seq_len > limits::kMaxSeqLen) {
    throw InputError("--seq", "", std::to_string(query.seq_len) + " tokens is outside [1, 16777216 (2^24)]");
  }
  const auto tokens = limits::checked_product(query.seq_len, query.micro_batch);
  if (query.micro_batch < 1 || !tokens || *tokens > limits::kMaxTokensPerMicroBatch) {
    throw InputError("--micro-batch", "", "micro_batch·seq_len must be between 1 and 2^26 tokens");
  }
  if (query.tp < 1 || query.tp > 4096) throw InputError("--tp", "", "must be between 1 and 4096");
  const Scenario s = parse_scenario(layer_scenario(query), "ctwin layer", std::filesystem::current_path(), repo_root);
  CollectiveTimes comm(s.cluster, network::ModelKind::kAnalytical, true);
  const ChunkWork work = build_layer_work(s, comm, query.layer);
  LayerPrediction prediction{s.model.name, s.gpu.name, {}, 0, 0, s.gpu.training_time_scale};
  std::map<std::string, std::size_t> index;
  for (const auto& op : work.forward) add(prediction.kernels, index, op, false);
  for (const auto& op : work.backward) add(prediction.kernels, index, op, true);
  prediction.forward_ms = compute_time_of(work.forward, false, false).seconds() * 1e3;
  prediction.backward_ms = compute_time_of(work.backward, false, false).seconds() * 1e3;
  for (const auto& kernel : prediction.kernels) {
    limits::require_finite_non_negative(kernel.forward_us, "layer kernel forward_us");
    limits::require_finite_non_negative(kernel.backward_us, "layer kernel backward_us");
  }
  limits::require_finite_non_negative(prediction.forward_ms, "layer forward_ms");
  limits::require_finite_non_negative(prediction.backward_ms, "layer backward_ms");
  return prediction;
}

LayerMeasurements read_layer_measurements(const std::filesystem::path& path) {
  LayerMeasurements file{path.string(), {}, {}};
  const nlohmann::json document = load_json_file(path);
  JsonObjectReader top(document, file.source, "");
  file.gpu = top.string("gpu");
  (void)top.string_or("torch", "");
  (void)top.string_or("cuda", "");
  (void)top.string_or("command", "");
  (void)top.string_or("date", "");
  (void)top.string_or("notes", "");
  const nlohmann::json& rows = top.required("rows");
  if (!rows.is_array() || rows.empty()) throw InputError(file.source, "/rows", "expected a non-empty array of measurements");
  std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::string, std::string>, std::size_t>
      rows_of_configs;  // a measured configuration -> its row
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string pointer = "/rows/" + std::to_string(i);
    if (!rows[i].is_object()) throw InputError(file.source, pointer, "expected an object");
    JsonObjectReader row(rows[i], file.source, pointer);
    LayerMeasurement m;
    m.model = row.string("model");
    m.seq_len = row.integer("seq_len", 1, std::int64_t{1} << 24);
    m.micro_batch = row.integer("micro_batch", 1, 1 << 16);
    m.tp = row.integer_or("tp", 1, 1024, 1);
    m.precision = row.choice("precision", {"bf16", "fp16", "fp8"});
    m.phase = row.choice("phase", {"cool", "hot"});
    m.forward_ms = row.number("forward_ms", 1e-6, 1e9);
    m.backward_ms = row.number("backward_ms", 1e-6, 1e9);
    if (row.has("sm_clock_mhz")) m.sm_clock_mhz = row.number("sm_clock_mhz", 1, 1e5);
    if (row.has("power_w")) m.power_w = row.number("power_w", 0, 1e5);
    m.iterations = row.integer_or("iterations", 1, std::int64_t{1} << 40, 1);
    row.finish();
    // One measurement per configuration: a repeated one would count twice in a fit (issue 36).
    const auto [same, first] =
        rows_of_configs.try_emplace(std::tuple(m.model, m.seq_len, m.micro_batch, m.tp, m.precision, m.phase), i);
    if (!first) {
      throw InputError(file.source, pointer, "the configuration of /rows/" + std::to_string(same->second) +
                                                 " again: give one measurement per model, seq_len, micro_batch, tp, "
                                                 "precision and phase");
    }
    file.rows.push_back(std::move(m));
  }
  top.finish();
  return file;
}

}  // namespace ctwin::replay
