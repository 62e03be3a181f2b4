#include "ctwin/cli/json_csv.hpp"

#include <map>
#include <ostream>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {
namespace {

bool is_table(const nlohmann::json& value) {
  return value.is_array() && !value.empty() && value.front().is_object();
}

std::string cell(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {  // a list of scalars, such as the --set changes, in one cell
    std::string joined;
    for (const auto& item : value) joined += (joined.empty() ? "" : ";") + cell(item);
    return joined;
  }
  return json_text(value);
}

std::string quoted(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// Dotted column names for every scalar under `value`, in key order; lists of objects are left
/// to tables of their own.
void flatten(const nlohmann::json& value, const std::string& prefix, std::map<std::string, std::string>& columns,
             std::vector<std::string>& order) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) flatten(child, prefix.empty() ? key : prefix + "." + key, columns, order);
    return;
  }
  if (is_table(value)) return;
  if (columns.emplace(prefix, cell(value)).second) order.push_back(prefix);
}

void print_rows(std::ostream& out, const std::vector<std::map<std::string, std::string>>& rows,
                const std::vector<std::string>& header) {
  for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << quoted(header[i]);
  out << '\n';
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      const auto it = row.find(header[i]);
      out << (i ? "," : "") << (it == row.end() ? "" : quoted(it->second));
    }
    out << '\n';
  }
}

}  // namespace

std::vector<std::string> csv_table_names(const nlohmann::json& result) {
  std::vector<std::string> names{"summary"};
  if (!result.is_object()) return names;
  for (const auto& [key, value] : result.items()) {
    if (is_table(value)) names.push_back(key);
  }
  return names;
}

void print_json_csv(std::ostream& out, const nlohmann::json& result, const std::string& table) {
  if (table.empty() || table == "summary") {
    std::map<std::string, std::string> columns;
    std::vector<std::string> order;
    flatten(result, "", columns, order);
    print_rows(out, {columns}, order);
    return;
  }
  if (!result.is_object() || !result.contains(table) || !is_table(result.at(table))) {
    std::string names;
    for (const auto& name : csv_table_names(result)) names += (names.empty() ? "" : ", ") + name;
    throw InputError("--table", "", "no table '" + table + "' in this result (expected one of: " + names + ")");
  }
  // Rows may differ in their fields (a point marked invalid has no step time): the header is
  // every field any row has, in order of first appearance.
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  std::map<std::string, std::string> seen;
  for (const auto& entry : result.at(table)) {
    std::map<std::string, std::string> columns;
    std::vector<std::string> order;
    flatten(entry, "", columns, order);
    for (const auto& name : order) {
      if (seen.emplace(name, "").second) header.push_back(name);
    }
    rows.push_back(std::move(columns));
  }
  print_rows(out, rows, header);
}

}  // namespace ctwin::cli
