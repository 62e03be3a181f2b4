#include "ctwin/validation/comparison.hpp"

#include <cmath>
#include <stdexcept>

namespace ctwin::api {

ErrorStats comparison_stats(const std::vector<ComparisonRow>& rows, std::optional<std::string_view> role) {
  std::vector<double> errors;
  for (const ComparisonRow& row : rows) {
    if (row.compared && (!role || row.role == *role)) errors.push_back(row.error);
  }
  return error_stats(std::move(errors));
}

namespace {

nlohmann::json comparison_json_value(const ComparisonColumn& column, const ComparisonRow& row) {
  switch (column.field) {
    case ComparisonField::kCase: return row.case_id;
    case ComparisonField::kRole: return row.role;
    case ComparisonField::kMetric: return row.metric;
    case ComparisonField::kLabel:
      // A column list and its rows are written together by one mode: a missing label is a bug.
      if (column.label >= row.labels.size()) throw std::logic_error("comparison column '" + column.json_key + "' has no label");
      return row.labels[column.label];
    case ComparisonField::kFigure:
      if (column.label >= row.figures.size()) throw std::logic_error("comparison column '" + column.json_key + "' has no figure");
      if (column.integer) return std::llround(row.figures[column.label]);
      return row.figures[column.label];
    case ComparisonField::kMeasured:
      if (column.measured_optional && !row.compared) return nullptr;
      return row.measured;
    case ComparisonField::kPredicted: return row.predicted;
    case ComparisonField::kErrorPercent:
    case ComparisonField::kErrorFraction: return row.compared ? nlohmann::json(row.error) : nlohmann::json();
  }
  return nullptr;
}

}  // namespace

nlohmann::json comparison_rows_json(const std::vector<ComparisonColumn>& columns, const std::vector<ComparisonRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const ComparisonRow& row : rows) {
    nlohmann::json object = nlohmann::json::object();
    for (const ComparisonColumn& column : columns) {
      if (!column.json_key.empty()) object[column.json_key] = comparison_json_value(column, row);
    }
    out.push_back(std::move(object));
  }
  return out;
}

}  // namespace ctwin::api
