#include "ctwin/cli/comparison_output.hpp"

#include <stdexcept>
#include <string>

namespace ctwin::cli {
namespace {

std::string comparison_value_text(const api::ComparisonColumn& column, const api::ComparisonRow& row, double value) {
  if (!column.scaled) return fixed(value, column.decimals);
  return fixed(value * row.display_scale, column.decimals) + row.display_suffix;
}

std::string comparison_cell(const api::ComparisonColumn& column, const api::ComparisonRow& row) {
  using F = api::ComparisonField;
  switch (column.field) {
    case F::kCase: return row.case_id;
    case F::kRole: return row.role;
    case F::kMetric: return row.metric;
    case F::kLabel:
      // A mode writes its column list and its rows together: a missing label is a bug.
      if (column.label >= row.labels.size()) throw std::logic_error("comparison column '" + column.header + "' has no label");
      return row.labels[column.label];
    case F::kFigure:
      if (column.label >= row.figures.size()) throw std::logic_error("comparison column '" + column.header + "' has no figure");
      return fixed(row.figures[column.label] * column.scale, column.decimals) + column.suffix;
    case F::kMeasured:
      if (column.measured_optional && !row.compared) return column.missing;
      return comparison_value_text(column, row, row.measured);
    case F::kPredicted: return comparison_value_text(column, row, row.predicted);
    case F::kErrorPercent: return row.compared ? signed_percent(row.error) : column.missing;
    case F::kErrorFraction: return row.compared ? fixed(row.error, column.decimals) : column.missing;
  }
  return "";
}

}  // namespace

Table comparison_table(const std::vector<api::ComparisonColumn>& columns, const std::vector<api::ComparisonRow>& rows) {
  std::vector<std::string> headers;
  for (const auto& column : columns) {
    if (!column.header.empty()) headers.push_back(column.header);
  }
  Table table(headers);
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const auto& column : columns) {
      if (!column.header.empty()) cells.push_back(comparison_cell(column, row));
    }
    table.add_row(std::move(cells));
  }
  return table;
}

}  // namespace ctwin::cli
