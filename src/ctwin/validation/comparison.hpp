#pragma once
// One comparison of the twin with a measurement, the row every `ctwin validate` mode reports
// (docs/validation.md, "One comparison row"), and the columns a mode lays its rows out in. The
// column list is data: the JSON rows are written here from it and the CLI prints its table and
// CSV from the same list, so a mode states its layout once and every mode goes through one
// writer whatever its columns.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/core/error_stats.hpp"

namespace ctwin::api {

struct ComparisonRow {
  std::string case_id;  ///< what was measured: a setup, a published run, a kernel class
  std::string role;     ///< the row's part in the check: its group, its phase, "fit" or "held out"
  std::string metric;   ///< the quantity compared, with its unit ("us per layer", "MFU", "busbw GB/s")
  double measured = 0;
  double predicted = 0;
  /// predicted / measured − 1 of the metric or of its throughput (nccl-tests: busbw, from the
  /// times), so +10 % means the twin is 10 % optimistic; computed by the mode, as it always was.
  double error = 0;
  bool compared = true;             ///< false when the measurement has no such row: `error` means nothing
  std::vector<std::string> labels;  ///< the mode's other columns, as text (GPUs, split, algorithm ...)
  std::vector<double> figures;      ///< and its other numbers (the step's MFU ...)
  double display_scale = 1;         ///< a table shows measured and predicted × this (100: a fraction as %)
  std::string display_suffix;       ///< and this after them (" %")
};

/// Over the compared rows' errors; only those whose role is `role` when given.
[[nodiscard]] ErrorStats comparison_stats(const std::vector<ComparisonRow>& rows,
                                          std::optional<std::string_view> role = std::nullopt);

enum class ComparisonField {
  kCase,
  kRole,
  kMetric,
  kLabel,          ///< the row's labels[label]
  kFigure,         ///< the row's figures[label], × `scale` with `decimals` and `suffix` in a table
  kMeasured,       ///< with `decimals`; scaled by the row's display scale and suffix when `scaled`
  kPredicted,      ///< as kMeasured
  kErrorPercent,   ///< a table's "+4.2%"; JSON: the fraction, null when not compared
  kErrorFraction,  ///< a table's fraction with `decimals` ("0.0420"); JSON as kErrorPercent
};

struct ComparisonColumn {
  std::string header{};    ///< the table's and CSV's; empty: JSON only
  std::string json_key{};  ///< each JSON row's; empty: table only
  ComparisonField field = ComparisonField::kCase;
  std::size_t label = 0;  ///< kLabel: which of the row's labels
  int decimals = 1;       ///< kMeasured, kPredicted, kErrorFraction: in the table
  bool scaled = true;     ///< kMeasured, kPredicted: apply the row's display scale and suffix
  std::string missing{};  ///< an error cell of a row not compared, in the table ("not in trace")
  double scale = 1;       ///< kFigure, in the table
  std::string suffix{};   ///< kFigure, in the table
  bool integer = false;   ///< kFigure: a count, which JSON writes as an integer
  /// kMeasured: a row not compared has no measurement: `missing` in the table, null in JSON.
  bool measured_optional = false;
};

/// The columns of `columns` that have a JSON key, one object per row, keys in column order.
[[nodiscard]] nlohmann::json comparison_rows_json(const std::vector<ComparisonColumn>& columns,
                                                  const std::vector<ComparisonRow>& rows);

}  // namespace ctwin::api
