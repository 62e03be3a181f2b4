#pragma once
// Printing is the front end's job: library calls return structs, these helpers lay them out.

#include <iosfwd>
#include <string>
#include <vector>

#include "ctwin/api/public_network.hpp"

namespace ctwin::cli {

enum class Format { kTable, kJson, kCsv };

/// Parses "table", "json" or "csv"; throws InputError naming --format otherwise.
[[nodiscard]] Format parse_format(const std::string& text);

/// The network models a training step runs on: "analytical" or "flow"; InputError naming --network otherwise.
[[nodiscard]] network::ModelKind step_network(const std::string& network);

/// Any network model of this build, named by `--network`.
[[nodiscard]] network::ModelKind network_flag(const std::string& network);

/// A table of already formatted cells, printed with aligned columns or as CSV.
class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add_row(std::vector<std::string> cells);
  void print(std::ostream& out, Format format, const std::string& indent = "") const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

/// Writes `text` to `path`; an InputError naming `flag` when the file cannot be written.
void write_text_file(const std::string& path, const std::string& flag, const std::string& text);

/// printf-style number formatting into a std::string.
[[nodiscard]] std::string fixed(double value, int decimals);

/// A relative error as a signed percentage with one decimal: "+4.2%", "-0.5%".
[[nodiscard]] std::string signed_percent(double error);

}  // namespace ctwin::cli
