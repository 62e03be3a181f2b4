#include "ctwin/replay/scenario.hpp"

#include <numeric>
#include <optional>
#include <utility>

#include "ctwin/core/bundled_names.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/replay/node_placement.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/step_limits.hpp"
#include "ctwin/workload/hf_config.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::replay {
namespace {

namespace fs = std::filesystem;

/// A referenced file: next to the scenario first, then under the repository root, then a
/// bundled name of the kind ("llama3-70b" for models/llm/llama3-70b.json), if it has bundled ones.
fs::path resolve(const std::string& given, const fs::path& scenario_dir, const fs::path& repo_root,
                 const std::string& source, const std::string& pointer, std::optional<DataKind> kind) {
  const fs::path p(given);
  if (p.is_absolute()) {
    if (is_file_path(p)) return p;
  } else {
    if (is_file_path(scenario_dir / p)) return scenario_dir / p;
    if (is_file_path(repo_root / p)) return repo_root / p;
  }
  if (kind) {
    if (auto bundled = find_bundled(repo_root, *kind, given)) return *bundled;
    if (is_bare_name(given)) {
      throw InputError(source, pointer, "no file or bundled " + std::string(data_kind_name(*kind)) + " named '" +
                                            given + "' (bundled: " + bundled_names(repo_root, *kind) + ")");
    }
  }
  throw InputError(source, pointer, "no file '" + given + "' (looked next to the scenario and in " +
                                        repo_root.string() + ")");
}

/// Replaces a referenced file by its document, so that overrides can reach into it.
void inline_part(nlohmann::json& scenario, const std::string& key, const fs::path& dir, const fs::path& root,
                 const std::string& source, std::string& origin) {
  auto it = scenario.find(key);
  if (it == scenario.end()) throw InputError(source, "/" + key, "is required");
  if (it->is_string()) {
    const DataKind kind = key == "model" ? DataKind::kModel : DataKind::kTopology;
    const fs::path file = resolve(it->get<std::string>(), dir, root, source, "/" + key, kind);
    *it = load_json_file(file);
    origin = file.string();
    return;
  }
  if (!it->is_object()) throw InputError(source, "/" + key, "expected a file path or an inline object");
}

compute::GpuSpec read_gpu(const nlohmann::json* given, const std::string& server_gpu, const fs::path& dir,
                          const fs::path& root, const std::string& source, GpuProfileCache* profiles) {
  if (given != nullptr && given->is_object()) {
    compute::GpuSpec inline_spec = compute::parse_gpu_spec(*given, source + " /gpu");
    if (!inline_spec.gemm_table_from.empty()) {
      throw InputError(source, "/gpu/gemm_table_from", "an inline profile cannot borrow a table; name the profile file instead");
    }
    return inline_spec;
  }
  std::string name = server_gpu;
  std::string pointer = "/cluster/server/gpu";
  if (given != nullptr && !given->is_null()) {
    if (!given->is_string()) throw InputError(source, "/gpu", "expected a GPU name, a file or an inline object");
    name = given->get<std::string>();
    pointer = "/gpu";
  }
  const fs::path file = resolve(name, dir, root, source, pointer, DataKind::kGpu);
  return profiles != nullptr ? profiles->load(file) : compute::load_gpu_spec(file);
}

/// Gives the pipeline's virtual stages layers in proportion to their GPUs' speed (node_pool.hpp).
void balance_by_speed(Scenario& s) {
  workload::ParallelConfig& split = s.split;
  const char* fixed = split.first_stage_layers   ? "first_stage_layers"
                      : split.last_stage_layers  ? "last_stage_layers"
                      : split.embedding_in_split ? "account_for_embedding_in_pipeline_split"
                      : split.loss_in_split      ? "account_for_loss_in_pipeline_split"
                      : !split.pipeline_layout.empty() ? "pipeline_layout"
                                                       : nullptr;
  if (fixed != nullptr) {
    throw InputError(s.source, "/pool/balance",
                     std::string("\"speed\" sets the layers per stage itself; drop parallel.") + fixed);
  }
  // A provisional layout of the right length lets the split be checked (and a layer built) before
  // the speeds are known: validate() refuses layers that do not divide over pp·vpp without one.
  const std::int64_t stages = split.pp * split.vpp;
  if (s.model.layers < stages) {
    throw InputError(s.source, "/pool/balance", "the model's " + std::to_string(s.model.layers) +
                                                    " layers cannot give each of " + std::to_string(stages) +
                                                    " virtual stages one");
  }
  split.pipeline_layout.assign(static_cast<std::size_t>(stages), s.model.layers / stages);
  for (std::int64_t v = 0; v < s.model.layers % stages; ++v) ++split.pipeline_layout[static_cast<std::size_t>(v)];
  workload::validate(s.model, split, s.gpus);
  check_pool(s);
  check_pool_memory(s);
  split.pipeline_layout = speed_layout(s);
}

}  // namespace

compute::GpuSpec GpuProfileCache::load(const fs::path& path) {
  // A profile borrowing another's table (gemm_table_from) is keyed by its own file only: the
  // lender is a bundled, calibrated profile, not one a notebook rewrites between calls.
  std::error_code error;
  const auto modified = fs::last_write_time(path, error);
  const std::pair key{fs::absolute(path).lexically_normal().string(), error ? fs::file_time_type{} : modified};
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = profiles_.find(key); it != profiles_.end()) return it->second;
  }
  compute::GpuSpec spec = compute::load_gpu_spec(path);
  const std::lock_guard lock(mutex_);
  return profiles_.emplace(key, std::move(spec)).first->second;
}

Scenario load_scenario(const fs::path& path, const fs::path& repo_root, const std::vector<std::string>& overrides) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  return parse_scenario(load_json_file(path), path.string(), dir, repo_root, overrides);
}

Scenario parse_scenario(nlohmann::json document, const std::string& source, const fs::path& dir,
                        const fs::path& repo_root, const std::vector<std::string>& overrides) {
  std::vector<Override> changes;
  changes.reserve(overrides.size());
  for (const auto& assignment : overrides) changes.push_back(parse_override(assignment));
  return parse_scenario(std::move(document), source, dir, repo_root, changes, "--set");
}

Scenario parse_scenario(nlohmann::json document, const std::string& source, const fs::path& dir,
                        const fs::path& repo_root, const std::vector<Override>& changes, const std::string& origin,
                        GpuProfileCache* profiles) {
  Scenario s = read_scenario(std::move(document), source, dir, repo_root, changes, origin, profiles);
  if (s.pool.balance == PoolBalance::kSpeed) balance_by_speed(s);
  check_split(s);
  check_pool_memory(s);
  return s;
}

Scenario Scenario::with_split(workload::ParallelConfig split, std::int64_t gpus) const {
  Scenario changed = *this;
  changed.split = std::move(split);
  changed.gpus = gpus;
  check_split(changed);
  return changed;
}

void check_split(const Scenario& s) {
  // TP overlap is TransformerEngine's userbuffers, which work on sequence-parallel activations.
  if (s.overlap.tp_comm && s.split.tp > 1 && !s.split.sequence_parallel) {
    throw InputError(s.source, "/overlap/tp_comm",
                     "needs parallel.sequence_parallel with tp > 1 (Megatron-LM refuses --tp-comm-overlap without "
                     "--sequence-parallel)");
  }
  workload::validate(s.model, s.split, s.gpus);
  check_step_within_limits(s);
  (void)place_ranks(s);  // an explicit list that does not fit the job is the file's error, named now
  check_pool(s);
}

Scenario read_scenario(nlohmann::json document, const std::string& source, const fs::path& dir,
                       const fs::path& repo_root, const std::vector<Override>& changes, const std::string& origin,
                       GpuProfileCache* profiles) {
  if (!document.is_object()) throw InputError(source, "", "a scenario is a JSON object");
  // Inline first so that --set can reach fields of a referenced model or cluster.
  std::string model_origin = source + " /model";
  std::string cluster_origin = source + " /cluster";
  inline_part(document, "model", dir, repo_root, source, model_origin);
  inline_part(document, "cluster", dir, repo_root, source, cluster_origin);
  apply_changes(document, changes, origin);
  // An override may name another file ("model=models/llm/llama3-70b.json").
  inline_part(document, "model", dir, repo_root, source, model_origin);
  inline_part(document, "cluster", dir, repo_root, source, cluster_origin);

  Scenario s;
  s.source = source;
  JsonObjectReader reader(document, source, "");
  // A scenario that reproduces a published run says which of its settings are the source's and which are assumed.
  s.description = reader.string_or("description", "");
  s.sources = reader.string_list_or_empty("sources");
  s.assumptions = reader.string_list_or_empty("assumptions");
  const auto& model_doc = reader.required("model");
  if (!model_doc.is_object()) throw InputError(source, "/model", "expected a file path or an inline object");
  s.model = workload::is_hf_config(model_doc) ? workload::parse_hf_config(model_doc, model_origin)
                                              : workload::parse_model_spec(model_doc, model_origin);
  const auto& cluster_doc = reader.required("cluster");
  if (!cluster_doc.is_object()) throw InputError(source, "/cluster", "expected a file path or an inline object");
  s.cluster = fabric::parse_cluster(cluster_doc, cluster_origin);
  s.cluster_key = json_text(cluster_doc);
  s.gpus = reader.integer("gpus", 1, std::int64_t{1} << 24);
  s.split = workload::read_parallel_config(reader.object("training"), reader.object("parallel"));
  if (auto overlap = reader.optional_object("overlap")) {
    s.overlap.dp_grad_reduce = overlap->boolean_or("dp_grad_reduce", s.overlap.dp_grad_reduce);
    s.overlap.dp_param_gather = overlap->boolean_or("dp_param_gather", s.overlap.dp_param_gather);
    s.overlap.tp_comm = overlap->boolean_or("tp_comm", s.overlap.tp_comm);
    if (auto config = overlap->optional_object("tp_comm_config")) s.overlap.tp_comm_config = read_ub_overlap(*config);
    s.overlap.pp_p2p = overlap->boolean_or("pp_p2p", s.overlap.pp_p2p);
    s.overlap.moe_shared_expert = overlap->boolean_or("moe_shared_expert", s.overlap.moe_shared_expert);
    overlap->finish();
  }
  if (const auto* stack = reader.optional("stack"); stack != nullptr && !stack->is_null()) {
    s.stack = read_scenario_stack(*stack, source, dir, repo_root, s.split.precision);
    s.cuda_graphs = s.stack->cuda_graphs;
    s.moe_runtime.permute_fusion = s.stack->permute_fusion;
    s.moe_runtime.imbalance = s.stack->imbalance;
  }
  if (auto moe_runtime = reader.optional_object("moe_runtime")) {
    if (!s.model.has_moe) throw InputError(source, "/moe_runtime", "the model has no MoE layers");
    s.moe_runtime = read_moe_runtime(*moe_runtime, s.moe_runtime);
  }
  if (auto host = reader.optional_object("host")) {
    s.cuda_graphs = host->boolean_or("cuda_graphs", s.cuda_graphs);
    host->finish();
  }
  if (const auto* data = reader.optional("data"); data != nullptr && !data->is_null()) {
    s.data = read_data_pipeline(*data, source, s.cluster, s.split.seq_len);
  }
  if (const auto* checkpoint = reader.optional("checkpoint"); checkpoint != nullptr && !checkpoint->is_null()) {
    s.checkpoint = read_checkpoint(*checkpoint, source, s.cluster);
  }
  s.network = network::parse_model_kind(reader.choice_or("network", {"analytical", "flow"}, "flow"), source, "/network");
  if (const auto* placement = reader.optional("placement")) s.placement = read_placement(*placement, source);
  // Read here, applied by api::Scenario::resolve (the file format lives in the calibration layer,
  // above this one); simulate_step refuses a scenario whose calibration was not applied.
  if (const auto* calibration = reader.optional("calibration"); calibration != nullptr && !calibration->is_null()) {
    if (!calibration->is_string()) throw InputError(source, "/calibration", "expected a calibration file (ctwin calibrate --bundle) or null");
    s.calibration = resolve(calibration->get<std::string>(), dir, repo_root, source, "/calibration", std::nullopt).string();
  }
  s.gpu = read_gpu(reader.optional("gpu"), s.cluster.server.gpu, dir, repo_root, source, profiles);
  // NCCL's tuning keys on the family of the GPU the job runs on, which makes it part of the
  // build's identity in the caches (the key's first line stays the cluster's document).
  s.cluster.server.gpu_arch = s.gpu.arch;
  s.cluster_key += "\narch:" + s.gpu.arch;
  s.pool = read_node_pool(s.cluster, reader.optional("pool"), source,
                          [&](const std::string& name, const std::string& pointer) {
                            const fs::path file = resolve(name, dir, repo_root, source, pointer, DataKind::kGpu);
                            return profiles != nullptr ? profiles->load(file) : compute::load_gpu_spec(file);
                          });
  reader.finish();
  return s;
}

std::int64_t nvlink_block(const workload::ParallelConfig& split) {
  return std::lcm(split.tp * split.cp, split.expert_tp * split.ep);
}

Placement place_ranks(const Scenario& scenario) {
  if (chooses_nodes(scenario.placement.policy)) {
    return place_on_nodes(scenario.placement, scenario.gpus, nvlink_block(scenario.split),
                          scenario.split.tp * scenario.split.cp * scenario.split.data_parallel(scenario.gpus),
                          scenario.cluster, scenario.source);
  }
  return Placement(scenario.placement, scenario.gpus, nvlink_block(scenario.split), scenario.cluster.server.gpus,
                   scenario.source);
}

}  // namespace ctwin::replay
