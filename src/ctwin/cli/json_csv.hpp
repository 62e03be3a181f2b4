#pragma once
// CSV a tool can read, from the same JSON `--format json` prints: one table per file, with a
// header. A result's scalars form the "summary" table (one row, nested objects flattened to
// dotted columns such as breakdown.exposed_comm_s.tp), and each list of objects in it is a
// table of its own, named by its key (`ctwin fabric --format csv --table hops`).

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctwin::cli {

/// "summary" first, then each top-level list of objects, in key order.
[[nodiscard]] std::vector<std::string> csv_table_names(const nlohmann::json& result);

/// Prints table `table` ("" or "summary": the scalars) of `result` as CSV; an InputError naming
/// --table, listing the tables, for one it does not have.
void print_json_csv(std::ostream& out, const nlohmann::json& result, const std::string& table);

}  // namespace ctwin::cli
