#include "ctwin/replay/tp_overlap.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

// TE's get_default_config by method.
UbGemmOverlap te_default(UbMethod method) {
  switch (method) {
    case UbMethod::kRingExchange:
      return {method, 1, 0, false};
    case UbMethod::kPipeline:
      return {method, 16, 4, true};
    case UbMethod::kBulk:
      return {method, 16, 0, true};
  }
  throw InternalError("unknown userbuffers method");
}

UbMethod method_named(const std::string& text) {
  if (text == "ring_exchange") return UbMethod::kRingExchange;
  if (text == "pipeline") return UbMethod::kPipeline;
  return UbMethod::kBulk;
}

}  // namespace

UbOverlapConfig UbOverlapConfig::te_defaults() {
  const UbGemmOverlap ring = te_default(UbMethod::kRingExchange);
  const UbGemmOverlap pipeline = te_default(UbMethod::kPipeline);
  const UbGemmOverlap bulk = te_default(UbMethod::kBulk);
  UbOverlapConfig config;
  config.qkv_fprop = config.fc1_fprop = config.proj_dgrad = config.fc2_dgrad = ring;
  config.proj_fprop = config.fc2_fprop = pipeline;
  config.qkv_dgrad = config.qkv_wgrad = config.fc1_dgrad = config.fc1_wgrad = bulk;
  return config;
}

UbOverlapConfig read_ub_overlap(JsonObjectReader reader) {
  UbOverlapConfig config = UbOverlapConfig::te_defaults();
  // The methods TE runs each GEMM's collective with: gathers into a GEMM by ring exchange, the
  // forward reduce-scatters by pipeline or ring exchange, the backward's side collectives in bulk.
  const std::vector<std::string> gather = {"ring_exchange"};
  const std::vector<std::string> reduce = {"pipeline", "ring_exchange"};
  const std::vector<std::string> side = {"bulk"};
  const std::vector<std::pair<const char*, std::pair<UbGemmOverlap*, const std::vector<std::string>*>>> gemms = {
      {"qkv_fprop", {&config.qkv_fprop, &gather}},   {"fc1_fprop", {&config.fc1_fprop, &gather}},
      {"proj_dgrad", {&config.proj_dgrad, &gather}}, {"fc2_dgrad", {&config.fc2_dgrad, &gather}},
      {"proj_fprop", {&config.proj_fprop, &reduce}}, {"fc2_fprop", {&config.fc2_fprop, &reduce}},
      {"qkv_dgrad", {&config.qkv_dgrad, &side}},     {"qkv_wgrad", {&config.qkv_wgrad, &side}},
      {"fc1_dgrad", {&config.fc1_dgrad, &side}},     {"fc1_wgrad", {&config.fc1_wgrad, &side}},
  };
  for (const auto& [key, target] : gemms) {
    auto gemm = reader.optional_object(key);
    if (!gemm) continue;
    const auto& [overlap, methods] = target;
    const UbGemmOverlap fallback = te_default(method_named(gemm->choice_or("method", *methods, methods->front())));
    UbGemmOverlap read = fallback;
    read.num_sm = static_cast<int>(gemm->integer_or("num_sm", 1, 1024, fallback.num_sm));
    if (read.method == UbMethod::kPipeline) {
      read.num_splits = static_cast<int>(gemm->integer_or("num_splits", 1, 64, fallback.num_splits));
    }
    read.set_sm_margin = gemm->boolean_or("set_sm_margin", fallback.set_sm_margin);
    gemm->finish();
    *overlap = read;
  }
  reader.finish();
  return config;
}

double ub_gemm_seconds(const UbGemmOverlap& overlap, std::int64_t sm_count, double gemm_s, double comm_s) {
  if (sm_count <= overlap.num_sm) return gemm_s;
  const double sms = static_cast<double>(sm_count);
  const double held = static_cast<double>(overlap.num_sm);
  const double squeezed = gemm_s * sms / (sms - held);
  return overlap.set_sm_margin ? squeezed : std::min(squeezed, gemm_s + comm_s * held / sms);
}

}  // namespace ctwin::replay
