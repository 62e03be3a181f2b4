#include "ctwin/calibration/kernel_profile.hpp"

#include <cmath>
#include <functional>

#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/grouped_gemm.hpp"
#include "ctwin/compute/memory_kernels.hpp"
#include "ctwin/compute/moe_kernels.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::calibration {
namespace {

using compute::Dtype;
using compute::GemmShape;

constexpr std::int64_t kMostRows = std::int64_t{1} << 40;
constexpr double kMostMs = 1e7;

// The minimum of a unimodal f on [lo, hi] by golden-section search (deterministic, no derivatives).
double golden_minimum(const std::function<double(double)>& f, double lo, double hi) {
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 200 && b - a > 1e-9 * std::abs(b); ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - ratio * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + ratio * (b - a), fd = f(d);
    }
  }
  return (a + b) / 2;
}

double squared_log_error(double predicted, double measured) {
  const double e = std::log(predicted / measured);
  return e * e;
}

double ms(SimTime t) { return t.seconds() * 1e3; }

// SwiGLU forward and backward over `rows` rows of f outputs.
double swiglu_ms(const compute::GpuSpec& gpu, std::int64_t rows, std::int64_t f) {
  double total = 0;
  for (const bool backward : {false, true}) {
    total += ms(compute::estimate_memory_kernel(gpu, {compute::MemoryKernel::kSwiGlu, rows * f, Dtype::kBf16, backward}).time);
  }
  return total;
}

}  // namespace

KernelProfile read_kernel_profile(const std::filesystem::path& path) {
  const nlohmann::json document = load_json_file(path);
  const std::string source = path.string();
  if (!document.is_object()) throw InputError(source, "", "expected kernel_profile.py's JSON object");
  JsonObjectReader top(document, source, "");
  KernelProfile profile;
  profile.gpu = top.string("gpu");
  for (const char* documentation : {"torch", "cuda", "date", "how"}) (void)top.optional(documentation);
  const nlohmann::json& rows = top.required("rows");
  top.finish();
  if (!rows.is_array()) throw InputError(source, "/rows", "expected an array");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string pointer = "/rows/" + std::to_string(i);
    if (!rows[i].is_object()) throw InputError(source, pointer, "expected an object");
    JsonObjectReader r(rows[i], source, pointer);
    const std::string kind = r.string("kind");
    // A block that ran out of memory, or whose grouped GEMM failed, has nothing to compare.
    if (kind == "moe_experts" && (rows[i].contains("error") || rows[i].contains("grouped_error"))) continue;
    if (kind == "moe_experts") {
      ExpertBlockRow row;
      row.model = r.string("model");
      row.hidden = r.integer("hidden", 1, kMostRows);
      row.expert_ffn = r.integer("expert_ffn", 1, kMostRows);
      row.tokens = r.integer("tokens", 1, kMostRows);
      row.top_k = r.integer("top_k", 1, 1024);
      row.local_experts = r.integer("local_experts", 1, 1 << 20);
      row.rows_per_expert = r.integer("rows_per_expert", 1, kMostRows);
      if (row.rows_per_expert * row.local_experts != row.tokens * row.top_k) {
        r.fail("rows_per_expert", "rows_per_expert × local_experts must be tokens × top_k (balanced routing)");
      }
      row.loop_ms = r.number("loop_ms", 1e-6, kMostMs);
      row.loop_host_ms = r.number("loop_host_ms", 0, kMostMs);
      row.dense_ms = r.number("dense_same_flops_ms", 1e-6, kMostMs);
      row.grouped_ms = r.number("grouped_ms", 1e-6, kMostMs);
      row.grouped_host_ms = r.number_or("grouped_host_ms", 0, kMostMs, 0);
      // Derived or descriptive: for people reading the file.
      for (const char* derived : {"experts", "ep", "fwd_bwd_tflop", "dense_tflops", "loop_tflops", "grouped_tflops"}) {
        (void)r.optional(derived);
      }
      r.finish();
      profile.experts.push_back(row);
    } else if (kind == "moe_router_permute") {
      RoutingRow row;
      row.model = r.string("model");
      row.hidden = r.integer("hidden", 1, kMostRows);
      row.experts = r.integer("experts", 1, 1 << 20);
      row.top_k = r.integer("top_k", 1, 1024);
      row.tokens = r.integer("tokens", 1, kMostRows);
      row.router_ms = r.number("router_fwd_bwd_ms", 1e-6, kMostMs);
      row.router_host_ms = r.number("router_host_ms", 0, kMostMs);
      row.permute_ms = r.number("permute_unpermute_fwd_bwd_ms", 1e-6, kMostMs);
      row.permute_host_ms = r.number("permute_host_ms", 0, kMostMs);
      r.finish();
      profile.routing.push_back(row);
    } else if (kind == "launch_overhead") {
      // Host time per bare eager launch: the unit of calibration/host_profile.hpp.
      profile.launch_host_us = r.number("us_per_kernel_host", 1e-3, 1e6);
      for (const char* derived : {"kernels", "gpu_ms", "host_ms"}) (void)r.optional(derived);
      r.finish();
    }
    // Other kinds (attention, copy, rmsnorm) are read by people, not here.
  }
  if (profile.experts.empty() && profile.routing.empty()) {
    throw InputError(source, "/rows", "no moe_experts or moe_router_permute rows");
  }
  return profile;
}

ExpertBlockPrediction predict_expert_block(const compute::GpuSpec& gpu, const ExpertBlockRow& row,
                                           double half_speed_rows) {
  const std::int64_t h = row.hidden, f = row.expert_ffn, rows = row.rows_per_expert * row.local_experts;
  const double act = swiglu_ms(gpu, rows, f);
  // Forward fc1 (rows × h → 2f) and fc2 (rows × f → h); backward each one's data and weight gradient.
  const std::vector<GemmShape> dense{{rows, 2 * f, h, Dtype::kBf16}, {rows, h, f, Dtype::kBf16},
                                     {rows, f, h, Dtype::kBf16},     {f, h, rows, Dtype::kBf16},
                                     {rows, h, 2 * f, Dtype::kBf16}, {h, 2 * f, rows, Dtype::kBf16}};
  ExpertBlockPrediction p;
  for (const auto& shape : dense) p.dense_ms += ms(compute::estimate_gemm(gpu, shape).time);
  const std::vector<std::int64_t> per_expert(static_cast<std::size_t>(row.local_experts), row.rows_per_expert);
  using compute::GroupedTokens;
  const std::vector<compute::GroupedGemmShape> grouped{
      {per_expert, 2 * f, h, Dtype::kBf16, GroupedTokens::kM}, {per_expert, h, f, Dtype::kBf16, GroupedTokens::kM},
      {per_expert, f, h, Dtype::kBf16, GroupedTokens::kM},     {per_expert, h, f, Dtype::kBf16, GroupedTokens::kK},
      {per_expert, h, 2 * f, Dtype::kBf16, GroupedTokens::kM}, {per_expert, 2 * f, h, Dtype::kBf16, GroupedTokens::kK}};
  for (const auto& shape : grouped) {
    p.per_expert_ms += ms(compute::estimate_grouped_gemm(gpu, shape).time);
    // The training step's model (replay/moe_layer), here with the r0 being fitted.
    p.rows_model_ms += ms(compute::estimate_grouped_gemm_rows(gpu, shape, half_speed_rows));
  }
  p.rows_model_ms += act;
  p.dense_ms += act;
  p.per_expert_ms += act;
  return p;
}

namespace {

// The four passes of the unfused path (compute/moe_kernels.hpp), the path this profile measures.
std::vector<compute::PermuteShape> permute_passes(const RoutingRow& row) {
  std::vector<compute::PermuteShape> passes;
  for (const auto pass : {compute::PermutePass::kPermute, compute::PermutePass::kUnpermute,
                          compute::PermutePass::kUnpermuteBackward, compute::PermutePass::kPermuteBackward}) {
    passes.push_back({compute::PermutePath::kUnfused, pass, row.tokens * row.top_k, row.hidden, row.top_k, 2});
  }
  return passes;
}

}  // namespace

double permute_bytes(const RoutingRow& row) {
  double bytes = 0;
  for (const auto& pass : permute_passes(row)) bytes += static_cast<double>(compute::permute_bytes(pass).count());
  return bytes;
}

double predict_permute_ms(const compute::GpuSpec& gpu, const RoutingRow& row, double hbm_efficiency) {
  double total = 0;
  for (const auto& pass : permute_passes(row)) total += ms(compute::estimate_permute(gpu, pass, hbm_efficiency).time);
  return total;
}

double fit_half_speed_rows(const compute::GpuSpec& gpu, const std::vector<ExpertBlockRow>& rows) {
  if (rows.empty()) throw InputError("kernel profile", "/rows", "no expert rows to fit on");
  const auto cost = [&](double log_r0) {
    double sum = 0;
    for (const auto& row : rows) {
      sum += squared_log_error(predict_expert_block(gpu, row, std::exp(log_r0)).rows_model_ms, row.grouped_ms);
    }
    return sum;
  };
  return std::exp(golden_minimum(cost, std::log(1.0), std::log(1e5)));
}

double fit_permute_efficiency(const compute::GpuSpec& gpu, const std::vector<RoutingRow>& rows) {
  if (rows.empty()) throw InputError("kernel profile", "/rows", "no permute rows to fit on");
  const auto cost = [&](double efficiency) {
    double sum = 0;
    for (const auto& row : rows) sum += squared_log_error(predict_permute_ms(gpu, row, efficiency), row.permute_ms);
    return sum;
  };
  return golden_minimum(cost, 0.01, 1.0);
}

}  // namespace ctwin::calibration
