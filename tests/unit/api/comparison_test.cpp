// The one comparison row of `ctwin validate` (validation/comparison.hpp): its error statistics by
// closed form, its JSON rows and its table/CSV from one column list, and the modes' column lists
// agreeing with the rows they are given.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/cli/comparison_output.hpp"
#include "ctwin/validation/comparison.hpp"
#include "ctwin/validation/nccl_validation.hpp"
#include "ctwin/validation/scaling_validation.hpp"
#include "ctwin/validation/trace_validation.hpp"
#include "ctwin/validation/training_validation.hpp"

namespace ctwin::api {
namespace {

ComparisonRow comparison_row(std::string case_id, std::string role, double measured, double predicted) {
  ComparisonRow row;
  row.case_id = std::move(case_id);
  row.role = std::move(role);
  row.metric = "ms";
  row.measured = measured;
  row.predicted = predicted;
  row.error = predicted / measured - 1;
  return row;
}

std::vector<ComparisonRow> three_compared_one_not() {
  std::vector<ComparisonRow> rows{comparison_row("a", "fit", 2.0, 2.2), comparison_row("b", "fit", 1.0, 0.8),
                                  comparison_row("c", "held out", 4.0, 4.2), comparison_row("d", "held out", 0, 3.0)};
  rows[3].compared = false;  // measured 0: an error of +inf that must count nowhere
  rows[3].error = 1e9;
  return rows;
}

TEST(Comparison, StatsAreOverTheComparedRowsOfTheRole) {
  const auto rows = three_compared_one_not();
  // |errors| 0.10, 0.20, 0.05: median 0.10, mean 0.35/3, max 0.20.
  const ErrorStats all = comparison_stats(rows);
  EXPECT_EQ(all.count, 3U);
  EXPECT_NEAR(all.median_abs, 0.10, 1e-12);
  EXPECT_NEAR(all.mean_abs, 0.35 / 3, 1e-12);
  EXPECT_NEAR(all.max_abs, 0.20, 1e-12);
  // The fit rows alone: an even count takes the mean of the middle two.
  const ErrorStats fit = comparison_stats(rows, "fit");
  EXPECT_EQ(fit.count, 2U);
  EXPECT_NEAR(fit.median_abs, 0.15, 1e-12);
  const ErrorStats held_out = comparison_stats(rows, "held out");
  EXPECT_EQ(held_out.count, 1U);
  EXPECT_NEAR(held_out.max_abs, 0.05, 1e-12);
  EXPECT_EQ(comparison_stats(rows, "no such role").count, 0U);
}

std::vector<ComparisonColumn> sample_columns() {
  using F = ComparisonField;
  return {{"case", "id", F::kCase},
          {"gpus", "", F::kLabel, 0},
          {"", "group", F::kRole},
          {"measured", "measured", F::kMeasured, 0, 2},
          {"predicted_raw", "predicted", F::kPredicted, 0, 3, false},
          {"mfu", "mfu", F::kFigure, 0, 1, true, "", 100, " %"},
          {"error", "error", F::kErrorPercent, 0, 1, true, "n/a"},
          {"error_fraction", "", F::kErrorFraction, 0, 4, true, "-"}};
}

TEST(Comparison, JsonRowsHoldTheColumnsWithAKeyAndNullForARowNotCompared) {
  auto rows = three_compared_one_not();
  for (auto& row : rows) {
    row.labels = {"8"};
    row.figures = {0.4};
  }
  const nlohmann::json json = comparison_rows_json(sample_columns(), rows);
  ASSERT_EQ(json.size(), 4U);
  EXPECT_EQ(json[0], (nlohmann::json{{"id", "a"}, {"group", "fit"}, {"measured", 2.0}, {"predicted", 2.2},
                                     {"mfu", 0.4}, {"error", rows[0].error}}));
  EXPECT_TRUE(json[3]["error"].is_null());
  EXPECT_FALSE(json[3].contains("gpus"));  // a table-only column
}

TEST(Comparison, TableAndCsvFollowTheSameColumns) {
  auto rows = three_compared_one_not();
  for (auto& row : rows) {
    row.labels = {"8"};
    row.figures = {0.4};
  }
  rows[1].display_scale = 100;  // a fraction shown as a percentage, in the scaled columns only
  rows[1].display_suffix = " %";
  std::ostringstream csv;
  cli::comparison_table(sample_columns(), rows).print(csv, cli::Format::kCsv);
  EXPECT_EQ(csv.str(),
            "case,gpus,measured,predicted_raw,mfu,error,error_fraction\n"
            "a,8,2.00,2.200,40.0 %,+10.0%,0.1000\n"
            "b,8,100.00 %,0.800,40.0 %,-20.0%,-0.2000\n"
            "c,8,4.00,4.200,40.0 %,+5.0%,0.0500\n"
            "d,8,0.00,3.000,40.0 %,n/a,-\n");
}

TEST(Comparison, AColumnPastTheRowsLabelsIsABugNotACell) {
  const std::vector<ComparisonColumn> columns{{"x", "x", ComparisonField::kLabel, 2}};
  const std::vector<ComparisonRow> rows{comparison_row("a", "fit", 1, 1)};
  EXPECT_THROW((void)comparison_rows_json(columns, rows), std::logic_error);
  EXPECT_THROW((void)cli::comparison_table(columns, rows), std::logic_error);
}

// The trace's table prints its JSON keys as headers; the training and nccl-tests column lists name
// only labels and figures their rows carry (the rows are the modes' own, built here from results).
TEST(Comparison, ModesColumnListsFitTheirRows) {
  for (const auto& column : trace_comparison_columns()) EXPECT_EQ(column.header, column.json_key);

  TraceValidation trace;
  trace.rows.push_back({calibration::KernelClass::kOther, "forward", "us per layer", 0, 12.5});
  trace.rows.push_back({calibration::KernelClass::kOther, "backward", "us per layer", 10, 12.5});
  const auto trace_rows = trace_comparison_rows(trace);
  ASSERT_EQ(trace_rows.size(), 2U);
  EXPECT_FALSE(trace_rows[0].compared);
  EXPECT_DOUBLE_EQ(trace_rows[1].error, 0.25);
  const nlohmann::json json = comparison_rows_json(trace_comparison_columns(), trace_rows);
  EXPECT_TRUE(json[0]["error"].is_null());
  EXPECT_EQ(json[1]["phase"], "backward");

  const auto max_label = [](const std::vector<ComparisonColumn>& columns, ComparisonField field) {
    std::size_t most = 0;
    for (const auto& c : columns) {
      if (c.field == field) most = std::max(most, c.label + 1);
    }
    return most;
  };
  // training_comparison_rows gives 4 labels and 1 figure; nccl_comparison_rows 6 labels.
  EXPECT_EQ(max_label(training_table_columns(), ComparisonField::kLabel), 4U);
  EXPECT_LE(max_label(training_comparison_columns(), ComparisonField::kLabel), 4U);
  EXPECT_EQ(max_label(training_table_columns(), ComparisonField::kFigure), 1U);
  EXPECT_EQ(max_label(nccl_csv_columns(), ComparisonField::kLabel), 6U);
}

// A size the source did not measure has no measured value: an empty cell and null, not 0; a
// count figure is an integer in JSON (the bytes --scaling always wrote).
TEST(Comparison, AnOptionalMeasurementAndACountFigure) {
  using F = ComparisonField;
  const std::vector<ComparisonColumn> columns{
      {.header = "measured", .json_key = "measured", .field = F::kMeasured, .decimals = 4, .scaled = false,
       .measured_optional = true},
      {.header = "gpus", .json_key = "gpus", .field = F::kFigure, .label = 0, .decimals = 0, .integer = true}};
  auto rows = three_compared_one_not();
  for (auto& row : rows) row.figures = {96};
  const nlohmann::json json = comparison_rows_json(columns, rows);
  EXPECT_TRUE(json[3]["measured"].is_null());
  EXPECT_EQ(json[0]["measured"], 2.0);
  EXPECT_TRUE(json[0]["gpus"].is_number_integer());
  EXPECT_EQ(json[0].dump(), R"({"gpus":96,"measured":2.0})");
  std::ostringstream csv;
  cli::comparison_table(columns, rows).print(csv, cli::Format::kCsv);
  EXPECT_EQ(csv.str(), "measured,gpus\n2.0000,96\n1.0000,96\n4.0000,96\n,96\n");
}

// --scaling's rows: every valid size once, compared only where the source measured it.
TEST(Comparison, ScalingRowsAreTheSizesComparedWhereMeasured) {
  analysis::ScalingCase study;
  study.id = "s";
  ScalingValidation validation;
  analysis::ScalingComparison c;
  c.scaling_case = &study;
  for (const std::int64_t gpus : {96, 192, 384}) {
    analysis::ScalingPoint point;
    point.gpus = gpus;
    point.report.mfu = 0.5;
    c.study.points.push_back(point);
  }
  c.study.points[1].invalid = "does not divide";
  c.points.push_back({{"run-384", 384, 0.4}, 0.5, 0.25});
  validation.results.push_back(c);
  const auto rows = scaling_size_rows(validation);
  ASSERT_EQ(rows.size(), 2U);  // the invalid size left out
  EXPECT_FALSE(rows[0].compared);
  EXPECT_TRUE(rows[1].compared);
  EXPECT_DOUBLE_EQ(rows[1].measured, 0.4);
  EXPECT_DOUBLE_EQ(rows[1].error, 0.25);
  std::ostringstream csv;
  cli::comparison_table(scaling_csv_columns(), rows).print(csv, cli::Format::kCsv);
  EXPECT_EQ(csv.str(), "study,gpus,predicted_mfu,measured_mfu,error\ns,96,0.5000,,\ns,384,0.5000,0.4000,0.2500\n");
  EXPECT_EQ(comparison_rows_json(scaling_measured_columns(), scaling_measured_rows(c)).dump(),
            R"([{"error":0.25,"gpus":384,"measured_mfu":0.4,"predicted_mfu":0.5,"run":"run-384"}])");
}

}  // namespace
}  // namespace ctwin::api
