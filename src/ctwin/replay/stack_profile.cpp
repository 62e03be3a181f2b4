#include "ctwin/replay/stack_profile.hpp"

#include <algorithm>

#include "ctwin/core/bundled_names.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::replay {
namespace {

namespace fs = std::filesystem;

// A cast reads 2-byte elements and writes at most a few 1-byte copies with their scales: more than
// 16 bytes per element is no cast.
constexpr double kMostCastBytes = 16;
// Fields a fit may set (docs/validation.md: at most three per stack).
const std::vector<std::string> kFittable = {"host_after_sync", "expert_time_scale", "per_expert_overhead", "imbalance"};
const std::vector<std::string> kMechanisms = {"precision_recipe", "quantize", "pad_rows", "aux_loss", "dispatcher",
                                              "cuda_graphs", "permute_fusion", "host_after_sync", "expert_time_scale",
                                              "per_expert_overhead", "expert_gemms", "imbalance", "layer_kernels"};

PrecisionRecipe parse_recipe(const std::string& name) {
  if (name == "fp8_current_scaling") return PrecisionRecipe::kFp8CurrentScaling;
  if (name == "mxfp8") return PrecisionRecipe::kMxfp8;
  return PrecisionRecipe::kBf16;
}

fs::path stack_file(const std::string& given, const fs::path& dir, const fs::path& root, const std::string& source) {
  const fs::path p(given);
  if (p.is_absolute() && is_file_path(p)) return p;
  if (!p.is_absolute()) {
    if (is_file_path(dir / p)) return dir / p;
    if (is_file_path(root / p)) return root / p;
  }
  if (auto bundled = find_bundled(root, DataKind::kStack, given)) return *bundled;
  throw InputError(source, "/stack", "no file or bundled software stack named '" + given +
                                         "' (bundled: " + bundled_names(root, DataKind::kStack) + ")");
}

}  // namespace

std::string recipe_name(PrecisionRecipe recipe) {
  switch (recipe) {
    case PrecisionRecipe::kFp8CurrentScaling: return "fp8_current_scaling";
    case PrecisionRecipe::kMxfp8: return "mxfp8";
    case PrecisionRecipe::kBf16: break;
  }
  return "bf16";
}

StackProfile parse_stack_profile(const nlohmann::json& document, const std::string& source) {
  if (!document.is_object()) throw InputError(source, "", "a software stack is a JSON object");
  JsonObjectReader r(document, source, "");
  StackProfile s;
  s.name = r.string("name");
  s.framework = r.string("framework");
  s.version = r.string("version");
  s.recipe = parse_recipe(r.choice("precision_recipe", {"bf16", "fp8_current_scaling", "mxfp8"}));
  s.dispatcher = r.choice("dispatcher", {"alltoall", "deepep"}) == "deepep" ? TokenDispatcher::kDeepEp
                                                                            : TokenDispatcher::kAlltoall;
  s.cuda_graphs = r.boolean("cuda_graphs");
  s.permute_fusion = r.boolean("permute_fusion");
  s.layer_kernels = r.choice_or("layer_kernels", {"fused", "eager"}, "fused") == "eager" ? LayerKernels::kEager : LayerKernels::kFused;
  s.dispatcher_sync = r.boolean("dispatcher_sync");
  if (auto q = r.optional_object("quantize")) {
    s.quantize_bytes_forward = q->number("bytes_forward", 0, kMostCastBytes);
    s.quantize_bytes_backward = q->number("bytes_backward", 0, kMostCastBytes);
    s.quantize_launches = static_cast<int>(q->integer("launches", 0, 8));
    q->finish();
    if (s.recipe == PrecisionRecipe::kBf16 && (s.quantize_bytes_forward > 0 || s.quantize_bytes_backward > 0)) {
      r.fail("quantize", "a bf16 recipe casts nothing to fp8; drop it or name an fp8 recipe");
    }
  } else if (s.recipe != PrecisionRecipe::kBf16) {
    r.fail("quantize", "is required for an fp8 recipe (bytes per element of its casts)");
  }
  s.pad_rows = r.integer_or("pad_rows", 1, 256, s.pad_rows);
  if (auto a = r.optional_object("aux_loss")) {
    s.aux_loss_launches_forward = static_cast<int>(a->integer("launches_forward", 0, 64));
    s.aux_loss_launches_backward = static_cast<int>(a->integer("launches_backward", 0, 64));
    a->finish();
  }
  s.host_after_sync = r.duration_or("host_after_sync", s.host_after_sync);
  if (s.host_after_sync > SimTime::from_seconds(0.1)) r.fail("host_after_sync", "over 100 ms per MoE layer is no host work");
  s.expert_time_scale = r.number_or("expert_time_scale", 0.5, 10, s.expert_time_scale);
  s.per_expert_overhead = r.duration_or("per_expert_overhead", s.per_expert_overhead);
  // A launch and a tail wave are microseconds; a millisecond per expert GEMM is a whole layer's GEMMs.
  if (s.per_expert_overhead > SimTime::from_seconds(1e-3)) r.fail("per_expert_overhead", "over 1 ms per expert GEMM is no overhead");
  s.expert_gemms = r.choice_or("expert_gemms", {"grouped", "per_expert"}, "grouped") == "per_expert" ? ExpertGemms::kPerExpert
                                                                                                 : ExpertGemms::kGrouped;
  s.imbalance = r.number_or("imbalance", 1, 64, s.imbalance);
  s.fitted = r.string_list_or_empty("fitted");
  if (s.fitted.size() > 3) r.fail("fitted", "at most three free parameters per stack");
  for (const auto& f : s.fitted) {
    if (std::find(kFittable.begin(), kFittable.end(), f) == kFittable.end()) {
      r.fail("fitted", "'" + f + "' is not a fittable field (host_after_sync, expert_time_scale, per_expert_overhead, imbalance)");
    }
  }
  if (auto sources = r.optional_object("sources")) {
    for (const auto& m : kMechanisms) {
      if (sources->has(m)) s.sources.push_back(m + ": " + sources->string(m));
    }
    sources->finish();
  }
  r.finish();
  return s;
}

StackProfile read_scenario_stack(const nlohmann::json& given, const std::string& source, const fs::path& dir,
                                 const fs::path& repo_root, workload::Precision precision) {
  StackProfile stack;
  if (given.is_object()) {
    stack = parse_stack_profile(given, source + " /stack");
  } else if (given.is_string()) {
    const fs::path file = stack_file(given.get<std::string>(), dir, repo_root, source);
    stack = parse_stack_profile(load_json_file(file), file.string());
  } else {
    throw InputError(source, "/stack", "expected a software stack name, a file or an inline object");
  }
  const bool fp8 = precision == workload::Precision::kFp8;
  if (fp8 != (stack.recipe != PrecisionRecipe::kBf16)) {
    throw InputError(source, "/stack", "its precision_recipe " + recipe_name(stack.recipe) + " does not match training.precision " +
                                           workload::precision_name(precision));
  }
  return stack;
}

}  // namespace ctwin::replay
