#include "ctwin/cli/output.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <ostream>

#include "ctwin/core/error.hpp"

namespace ctwin::cli {

Format parse_format(const std::string& text) {
  if (text == "table") return Format::kTable;
  if (text == "json") return Format::kJson;
  if (text == "csv") return Format::kCsv;
  throw InputError("--format", "", "unknown format '" + text + "' (expected table, json or csv)");
}

void Table::add_row(std::vector<std::string> cells) {
  CTWIN_ASSERT(cells.size() == headers_.size(), "a row has one cell per column");
  rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& out, Format format, const std::string& indent) const {
  if (format == Format::kCsv) {
    // RFC 4180: a cell holding a comma, a quote or a line break is quoted, quotes doubled.
    auto cell = [&](const std::string& text) {
      if (text.find_first_of(",\"\n") == std::string::npos) return text;
      std::string quoted = "\"";
      for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      return quoted + "\"";
    };
    auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << cell(cells[i]);
      out << '\n';
    };
    line(headers_);
    for (const auto& row : rows_) line(row);
    return;
  }
  std::vector<std::size_t> width(headers_.size());
  for (std::size_t i = 0; i < headers_.size(); ++i) width[i] = headers_[i].size();
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    out << indent;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      // First column left-aligned (names), the rest right-aligned (numbers).
      const std::string pad(width[i] - cells[i].size(), ' ');
      out << (i ? "  " : "") << (i == 0 ? cells[i] + pad : pad + cells[i]);
    }
    out << '\n';
  };
  line(headers_);
  for (const auto& row : rows_) line(row);
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

network::ModelKind step_network(const std::string& network) {
  if (network != "analytical" && network != "flow") {
    throw InputError("--network", "", "unknown network model '" + network + "' (expected analytical or flow)");
  }
  return network_flag(network);
}

network::ModelKind network_flag(const std::string& network) { return network::parse_model_kind(network, "--network", ""); }

void write_text_file(const std::string& path, const std::string& flag, const std::string& text) {
  std::ofstream out(path);
  if (!out) throw InputError(flag, "", "cannot write '" + path + "'");
  out << text;
  if (!out) throw InputError(flag, "", "cannot write '" + path + "'");
}

std::string signed_percent(double error) {
  char text[64];
  std::snprintf(text, sizeof text, "%+.1f%%", 100 * error);
  return text;
}

}  // namespace ctwin::cli
