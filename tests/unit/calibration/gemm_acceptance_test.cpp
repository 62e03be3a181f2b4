// Acceptance of the compute twin against public GEMM measurements (validation/gemm, converted
// from aiconfigurator's trtllm sweeps and ml-engineering's MAMF table; see its README).
// Each GPU's table is fitted here from the fit split only and judged on the held-out split;
// the MAMF best shapes are never fitted to. The numbers are printed so that the README table can
// be checked against a run.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

#include "ctwin/core/error.hpp"
#include "ctwin/core/error_stats.hpp"
#include "ctwin/calibration/gemm_csv.hpp"
#include "ctwin/calibration/gemm_fit.hpp"
#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/memory_kernels.hpp"
#include "source_root.hpp"

namespace ctwin::calibration {
namespace {

using compute::Dtype;
namespace fs = std::filesystem;

const char* const kGpus[] = {"a100-sxm-80gb", "h100-sxm", "b200", "l40s"};

// Acceptance targets this model misses, with the error measured when that was found (README,
// "Compute twin"). They are held to that number so they cannot get worse unnoticed; every other
// case must meet the target. Remove an entry when the model improves.
struct KnownMiss {
  const char* gpu;
  Dtype dtype;
  double measured;
};
constexpr KnownMiss kUncalibratedMisses[] = {{"b200", Dtype::kFp8, 0.36}};
constexpr KnownMiss kMamfMisses[] = {{"a100-sxm-80gb", Dtype::kBf16, 0.116}};

double allowed(const KnownMiss* begin, const KnownMiss* end, const std::string& gpu, Dtype dtype, double target) {
  for (const KnownMiss* miss = begin; miss != end; ++miss) {
    if (gpu == miss->gpu && dtype == miss->dtype) return miss->measured + 0.001;
  }
  return target;
}

compute::GpuSpec uncalibrated(const std::string& gpu) {
  compute::GpuSpec spec = compute::load_gpu_spec(kRootDir / "models/gpus" / (gpu + ".json"));
  spec.gemm_table.reset();
  return spec;
}

GemmSweep sweep(const std::string& gpu, const std::string& split) {
  return read_gemm_csv(kRootDir / "validation/gemm" / (gpu + "-" + split + ".csv"), MeasurementColumn::kRequired);
}

// A shipped table equals a refit up to the 5 significant digits the file keeps.
void expect_table_is_the_refit(const compute::GpuSpec& shipped, const compute::GemmEfficiencyTable& refit) {
  ASSERT_TRUE(shipped.gemm_table.has_value());
  ASSERT_EQ(shipped.gemm_table->grids().size(), refit.grids().size());
  for (const auto& [dtype, grid] : refit.grids()) {
    const compute::EfficiencyGrid* stored = shipped.gemm_table->grid(dtype);
    ASSERT_NE(stored, nullptr);
    EXPECT_EQ(stored->m, grid.m);
    EXPECT_EQ(stored->k, grid.k);
    ASSERT_EQ(stored->efficiency.size(), grid.efficiency.size());
    for (std::size_t i = 0; i < grid.efficiency.size(); ++i) {
      EXPECT_NEAR(stored->efficiency[i] / grid.efficiency[i], 1.0, 1e-4);
    }
  }
}

TEST(GemmAcceptance, HeldOutErrorPerGpu) {
  for (const std::string gpu : kGpus) {
    SCOPED_TRACE(gpu);
    compute::GpuSpec spec = uncalibrated(gpu);
    spec.gemm_table = fit_gemm_table(spec, sweep(gpu, "fit"));
    const GemmErrorReport held_out = gemm_errors(spec, sweep(gpu, "holdout"));
    for (const auto& [dtype, stats] : held_out.per_dtype) {
      std::printf("%-14s %-4s held-out median |err| %.1f%% (%zu shapes), MNK>=2^30 %.1f%% (%zu shapes)\n", gpu.c_str(),
                  compute::dtype_name(dtype).c_str(), 100 * stats.median_abs, stats.count,
                  100 * held_out.large_per_dtype.at(dtype).median_abs, held_out.large_per_dtype.at(dtype).count);
    }
    EXPECT_LE(held_out.large_per_dtype.at(Dtype::kBf16).median_abs, 0.05);
    EXPECT_LE(held_out.overall.median_abs, 0.15);
  }
}

// Beyond the measured sizes the table answers with its edge's efficiency. Whether that predicts
// better than the uncalibrated roofline is checked the honest way: per axis, fit on the sweep
// without its two largest sizes (or without its smallest well-sampled size and the odd square shapes
// below it) and predict the rows left out, both ways.
struct ExtrapolationCase {
  const char* name;
  std::int64_t compute::GemmShape::*axis;
  bool beyond_largest;
};

TEST(GemmAcceptance, EdgeEfficiencyPredictsBeyondTheGridBetterThanTheDefaults) {
  const ExtrapolationCase cases[] = {{"M largest", &compute::GemmShape::m, true},
                                     {"N largest", &compute::GemmShape::n, true},
                                     {"K largest", &compute::GemmShape::k, true},
                                     {"N smallest", &compute::GemmShape::n, false},
                                     {"K smallest", &compute::GemmShape::k, false}};
  for (const std::string gpu : kGpus) {
    GemmSweep all = sweep(gpu, "fit");
    const GemmSweep holdout = sweep(gpu, "holdout");
    all.rows.insert(all.rows.end(), holdout.rows.begin(), holdout.rows.end());
    std::vector<double> edge_errors;
    std::vector<double> default_errors;
    for (const ExtrapolationCase& extrapolation : cases) {
      std::map<std::int64_t, int> rows_per_size;
      for (const auto& row : all.rows) ++rows_per_size[row.shape.*extrapolation.axis];
      ASSERT_GE(rows_per_size.size(), 4u);
      const std::int64_t third_largest = std::prev(rows_per_size.end(), 3)->first;
      std::int64_t smallest_sampled = 0;
      for (const auto& [size, rows] : rows_per_size) {
        if (rows >= 20) {
          smallest_sampled = size;
          break;
        }
      }
      const auto left_out = [&](std::int64_t size) {
        return extrapolation.beyond_largest ? size > third_largest : size <= smallest_sampled;
      };
      GemmSweep inner{all.source, {}};
      GemmSweep outer{all.source, {}};
      for (const auto& row : all.rows) (left_out(row.shape.*extrapolation.axis) ? outer : inner).rows.push_back(row);
      compute::GpuSpec calibrated = uncalibrated(gpu);
      calibrated.gemm_table = fit_gemm_table(calibrated, inner);
      const compute::GpuSpec defaults = uncalibrated(gpu);
      std::vector<double> edge;
      std::vector<double> fallback;
      for (const auto& row : outer.rows) {
        const compute::GemmEstimate estimate = compute::estimate_gemm(calibrated, row.shape);
        ASSERT_EQ(estimate.source, compute::GemmSource::kTableEdge);
        edge.push_back(std::fabs(estimate.time.seconds() / row.time_s - 1));
        fallback.push_back(std::fabs(compute::estimate_gemm(defaults, row.shape).time.seconds() / row.time_s - 1));
      }
      edge_errors.insert(edge_errors.end(), edge.begin(), edge.end());
      default_errors.insert(default_errors.end(), fallback.begin(), fallback.end());
      std::printf("%-14s %-10s %4zu shapes beyond the fitted grid: edge efficiency %.1f%%, defaults %.1f%%\n",
                  gpu.c_str(), extrapolation.name, edge.size(), 100 * error_stats(edge).median_abs,
                  100 * error_stats(fallback).median_abs);
    }
    const double edge_median = error_stats(edge_errors).median_abs;
    const double default_median = error_stats(default_errors).median_abs;
    std::printf("%-14s all        %4zu shapes: edge efficiency %.1f%%, defaults %.1f%%\n", gpu.c_str(),
                edge_errors.size(), 100 * edge_median, 100 * default_median);
    EXPECT_LT(edge_median, default_median) << gpu;
    EXPECT_LE(edge_median, 0.15) << gpu;
  }
}

// The shipped profiles must be what `ctwin calibrate` makes of the fit split alone: refitting
// here reproduces them up to the 5 significant digits the file keeps.
TEST(GemmAcceptance, ShippedProfilesAreFittedToTheFitSplitOnly) {
  for (const std::string gpu : kGpus) {
    SCOPED_TRACE(gpu);
    const compute::GpuSpec shipped = compute::load_gpu_spec(kRootDir / "models/gpus" / (gpu + ".json"));
    const compute::GemmEfficiencyTable refit = fit_gemm_table(uncalibrated(gpu), sweep(gpu, "fit"));
    expect_table_is_the_refit(shipped, refit);
  }
}

// The profiles made from the project's own sweeps (validation/collect/gemm_sweep.py on one H200 and
// one H100) are shipped beside the defaults, under calibrated/gemm: the same refit rule, and their
// held-out large bf16 shapes within issue 4's 5 % median.
TEST(GemmAcceptance, OwnSweepProfilesAreFittedToTheirFitSplitOnly) {
  struct OwnSweep {
    const char* base;
    const char* sweep;
  };
  for (const OwnSweep own : {OwnSweep{"h200", "h200"}, OwnSweep{"h100-sxm", "h100-sweep"}}) {
    SCOPED_TRACE(own.sweep);
    const compute::GpuSpec shipped =
        compute::load_gpu_spec(kRootDir / "models/gpus/calibrated/gemm" / (std::string(own.base) + ".json"));
    const compute::GemmEfficiencyTable refit = fit_gemm_table(uncalibrated(own.base), sweep(own.sweep, "fit"));
    expect_table_is_the_refit(shipped, refit);
    std::vector<double> large_bf16;
    for (const auto& row : sweep(own.sweep, "holdout").rows) {
      const auto& shape = row.shape;
      if (shape.dtype != Dtype::kBf16 || static_cast<double>(shape.m) * shape.n * shape.k < std::pow(2.0, 30)) continue;
      large_bf16.push_back(compute::estimate_gemm(shipped, shape).time.seconds() / row.time_s - 1);
    }
    const ErrorStats held_out = error_stats(large_bf16);
    ASSERT_GT(held_out.count, 40u);
    EXPECT_LT(held_out.median_abs, 0.05);
  }
}

// Without calibration: the roofline with default efficiencies against every measured shape.
// aiconfigurator's fp8 times include dynamic quantization of the activations, so for fp8 the
// prediction compared is the GEMM plus ctwin's fp8_cast kernel on the M x K bf16 input.
TEST(GemmAcceptance, UncalibratedDefaultsWithin25Percent) {
  for (const std::string gpu : kGpus) {
    const compute::GpuSpec spec = uncalibrated(gpu);
    std::map<Dtype, std::vector<double>> errors;
    for (const char* split : {"fit", "holdout"}) {
      for (const auto& row : sweep(gpu, split).rows) {
        double predicted = compute::estimate_gemm(spec, row.shape).time.seconds();
        if (row.shape.dtype == Dtype::kFp8) {
          predicted += compute::estimate_memory_kernel(
                           spec, {compute::MemoryKernel::kFp8Cast, row.shape.m * row.shape.k, Dtype::kBf16, false})
                           .time.seconds();
        }
        errors[row.shape.dtype].push_back(std::fabs(predicted / row.time_s - 1));
      }
    }
    for (auto& [dtype, values] : errors) {
      const ErrorStats stats = error_stats(values);
      std::printf("%-14s %-4s uncalibrated median |err| %.1f%% (%zu shapes)\n", gpu.c_str(),
                  compute::dtype_name(dtype).c_str(), 100 * stats.median_abs, stats.count);
      EXPECT_LE(stats.median_abs, allowed(std::begin(kUncalibratedMisses), std::end(kUncalibratedMisses), gpu, dtype, 0.25))
          << gpu << " " << compute::dtype_name(dtype);
    }
  }
}

// The best shapes of ml-engineering's maximum-achievable-matmul table (torch.mm, not TensorRT-LLM),
// predicted with the shipped profiles: calibrated ones, and GB200 with the table it borrows from
// B200. bf16 rows exist for A100, B200 and GB200; the H100 row of that table is fp8 (see the README).
std::vector<std::string> mamf_gpu_column(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> gpus;
  std::getline(in, line);
  EXPECT_EQ(line, "m,n,k,dtype,tflops,gpu");
  while (std::getline(in, line)) gpus.push_back(line.substr(line.rfind(',') + 1));
  return gpus;
}

// Issue 36: a shape measured twice (a file concatenated with itself, an edited copy) was fitted
// twice. One measurement per shape and GPU; the shipped sweeps have none repeated.
TEST(GemmCsv, AShapeMeasuredTwiceIsRefusedNamingBothLines) {
  const fs::path csv = fs::temp_directory_path() / ("ctwin-gemm-twice-" + std::to_string(::getpid()) + ".csv");
  std::ofstream(csv) << "m,n,k,dtype,time_us\n4096,4096,4096,bf16,200\n8192,4096,4096,bf16,400\n4096,4096,4096,bf16,150\n";
  try {
    (void)read_gemm_csv(csv, MeasurementColumn::kRequired);
    ADD_FAILURE() << "a repeated shape was read";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("line 4"), std::string::npos) << what;
    EXPECT_NE(what.find("shape of line 2 again"), std::string::npos) << what;
  }
  std::ofstream(csv) << "m,n,k,dtype\n4096,4096,4096,bf16\n4096,4096,4096,bf16\n";  // shapes to predict: no measurement
  EXPECT_EQ(read_gemm_csv(csv, MeasurementColumn::kOptional).rows.size(), 2u);
  fs::remove(csv);
}

TEST(GemmAcceptance, MamfBestShapesWithin10Percent) {
  const fs::path mamf_csv = kRootDir / "validation/gemm/mamf.csv";
  const GemmSweep mamf = read_gemm_csv(mamf_csv, MeasurementColumn::kRequired);
  const std::vector<std::string> gpu_of_line = mamf_gpu_column(mamf_csv);
  ASSERT_EQ(mamf.rows.size(), 5u);
  ASSERT_EQ(gpu_of_line.size(), mamf.rows.size());
  for (std::size_t i = 0; i < mamf.rows.size(); ++i) {
    const auto& row = mamf.rows[i];
    const compute::GpuSpec spec = compute::load_gpu_spec(kRootDir / "models/gpus" / (gpu_of_line[i] + ".json"));
    const compute::GemmEstimate estimate = compute::estimate_gemm(spec, row.shape);
    const double measured_tflops = row.shape.flops().count() / row.time_s * 1e-12;
    const double error = estimate.rate().teraflops() / measured_tflops - 1;
    std::printf("MAMF %-14s %-4s %lldx%lldx%lld measured %.0f TFLOP/s, predicted %.0f (%+.1f%%, %s)\n",
                gpu_of_line[i].c_str(),
                compute::dtype_name(row.shape.dtype).c_str(), static_cast<long long>(row.shape.m),
                static_cast<long long>(row.shape.n), static_cast<long long>(row.shape.k), measured_tflops,
                estimate.rate().teraflops(), 100 * error, compute::gemm_source_name(estimate.source).c_str());
    if (row.shape.dtype == Dtype::kBf16) {
      EXPECT_LE(std::fabs(error), allowed(std::begin(kMamfMisses), std::end(kMamfMisses), gpu_of_line[i], Dtype::kBf16, 0.10))
          << gpu_of_line[i];
    }
  }
}

}  // namespace
}  // namespace ctwin::calibration
