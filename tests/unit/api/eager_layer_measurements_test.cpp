// Issue 41 item 2 on the project's own H100 layers (validation/layers/h100-*.json, eager PyTorch as
// layer_bench.py runs them): with the profile's GEMM table fitted on the same machine's sweep and no
// layer scale, the fused kernel sum is about 11 % short of the whole layer; pricing the kernels eager
// autograd runs (stack pytorch-eager) and the non-GEMM classes measured on a GPU closes it to a few
// per cent, with the classes fitted on the H100's kernel profile and, held out, on the H200's. Nothing
// here was fitted on a layer: the kernel list is autograd's, the classes come from the kernel profiles.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include <unistd.h>

#include "ctwin/api/layer.hpp"
#include "ctwin/core/error_stats.hpp"
#include "ctwin/core/json_reader.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

const std::string kGemmProfiles = kRoot + "/models/gpus/calibrated/gemm/";

// The H100 GEMM table with the non-GEMM classes of `lender` (a profile beside it), written where a
// test can name it: the classes held out when the lender is another GPU's.
std::string h100_with_classes_of(const std::string& lender) {
  nlohmann::json profile = load_json_file(kGemmProfiles + "h100-sxm.json");
  const nlohmann::json classes = load_json_file(kGemmProfiles + lender + ".json");
  profile["non_gemm"] = classes["non_gemm"];
  profile["sources"]["non_gemm"] = classes["sources"]["non_gemm"];
  const auto path = std::filesystem::temp_directory_path() /
                    ("ctwin-eager-h100-" + lender + "-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << profile.dump();
  return path.string();
}

// Median |predicted / measured − 1| of the whole layer (forward + backward), over the hot rows or all.
double layer_median(const std::string& measured, const std::string& gpu, const std::string& stack, bool hot_only) {
  replay::LayerQuery query;
  query.gpu = gpu;
  query.stack = stack;
  std::vector<double> errors;
  for (const auto& row : compare_layers(query, measured).rows) {
    if (hot_only && row.measured.phase != "hot") continue;
    errors.push_back((row.predicted.forward_ms + row.predicted.backward_ms) /
                         (row.measured.forward_ms + row.measured.backward_ms) - 1);
  }
  return error_stats(errors).median_abs;
}

TEST(EagerLayerMeasurements, EagerKernelsAndMeasuredClassesCloseTheH100LayerGap) {
  const std::string layers = kRoot + "/validation/layers/h100-layers.json";
  const std::string shards = kRoot + "/validation/layers/h100-tp-layers.json";
  const std::string before = kGemmProfiles + "h100-sxm.json";  // the GEMM table alone
  const std::string own = kGemmProfiles + "h100-sxm-nongemm.json";
  const std::string held_out = h100_with_classes_of("h200-nongemm");
  // Before: the fused kernel sum, GEMM table alone (docs/compute.md: 11.8 % hot, 10.9 % all).
  EXPECT_GT(layer_median(layers, before, "", true), 0.10);
  // The eager kernels with the H100's own classes (3.5 % hot, 2.5 % all) and the H200's (4.1 %, 2.8 %).
  EXPECT_LT(layer_median(layers, own, "pytorch-eager", true), 0.05);
  EXPECT_LT(layer_median(layers, own, "pytorch-eager", false), 0.05);
  EXPECT_LT(layer_median(layers, held_out, "pytorch-eager", true), 0.05);
  EXPECT_LT(layer_median(layers, held_out, "pytorch-eager", false), 0.05);
  // Tensor-parallel shards with sequence parallelism (the collectives left out): 8.6 % hot before;
  // 0.8 % and 1.1 % after.
  EXPECT_GT(layer_median(shards, before, "", true), 0.07);
  EXPECT_LT(layer_median(shards, own, "pytorch-eager", true), 0.03);
  EXPECT_LT(layer_median(shards, held_out, "pytorch-eager", true), 0.03);
  std::filesystem::remove(held_out);
}

}  // namespace
}  // namespace ctwin::api
