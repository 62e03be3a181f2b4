// Reading what acceptance tests printed (acceptance_check.hpp, read_measured).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ctwin/acceptance/acceptance_check.hpp"
#include "ctwin/acceptance/acceptance_p2p.hpp"
#include "ctwin/calibration/nccl_log.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::api {
namespace {

namespace fs = std::filesystem;

const AcceptanceTest* find_test(const AcceptancePlan& plan, const std::string& id) {
  for (const auto& test : plan.tests) {
    if (test.id == id) return &test;
  }
  return nullptr;
}

const AcceptanceTest& require_test(const AcceptancePlan& plan, const std::string& id, const std::string& file,
                                   const std::string& field) {
  const AcceptanceTest* test = find_test(plan, id);
  if (test == nullptr) throw InputError(file, field, "unknown test '" + id + "': the plan '" + plan.name + "' has no such test");
  return *test;
}

std::optional<double> number(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::vector<std::string> split(const std::string& line, char by) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, by)) out.push_back(field);
  if (!line.empty() && line.back() == by) out.emplace_back();
  return out;
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

void read_csv(const fs::path& path, const AcceptancePlan& plan, MeasuredSet& out) {
  std::ifstream in(path);
  const std::string file = path.string();
  std::string line;
  if (!std::getline(in, line)) throw InputError(file, "line 1", "empty file (expected the header test,instance,value[,unit])");
  const auto header = split(trimmed(line), ',');
  const bool with_unit = header == std::vector<std::string>{"test", "instance", "value", "unit"};
  if (!with_unit && header != std::vector<std::string>{"test", "instance", "value"}) {
    throw InputError(file, "line 1", "the header is '" + trimmed(line) + "' (expected test,instance,value[,unit])");
  }
  int number_of_line = 1;
  while (std::getline(in, line)) {
    ++number_of_line;
    line = trimmed(line);
    if (line.empty()) continue;
    const std::string where = "line " + std::to_string(number_of_line);
    const auto fields = split(line, ',');
    if (fields.size() != header.size()) {
      throw InputError(file, where, std::to_string(fields.size()) + " fields, the header has " + std::to_string(header.size()));
    }
    const AcceptanceTest& test = require_test(plan, trimmed(fields[0]), file, where);
    const auto value = number(fields[2]);
    if (!value || *value < 0) throw InputError(file, where, "value '" + fields[2] + "' is not a non-negative number");
    if (with_unit && trimmed(fields[3]) != metric_unit(test.metric)) {
      throw InputError(file, where, "unit '" + trimmed(fields[3]) + "', but " + test.id + " measures " + test.metric + " in '" +
                                        metric_unit(test.metric) + "'");
    }
    out.values.push_back({test.id, trimmed(fields[1]), *value, file + ":" + std::to_string(number_of_line)});
  }
}

void read_nccl(const fs::path& path, const AcceptancePlan& plan, const fabric::Fabric& fabric, MeasuredSet& out) {
  const std::string file = path.string();
  std::string stem = path.stem().string();
  std::optional<int> ranks_from_name;
  if (const std::size_t at = stem.find('@'); at != std::string::npos) {
    const auto ranks = number(stem.substr(at + 1));
    if (!ranks || *ranks < 1 || *ranks != std::floor(*ranks)) throw InputError(file, "name", "expected <test>@<ranks>.log");
    ranks_from_name = static_cast<int>(*ranks);
    stem = stem.substr(0, at);
  }
  const AcceptanceTest& test = require_test(plan, stem, file, "name");
  if (test.kind != AcceptanceKind::kCollective) throw InputError(file, "name", test.id + " is not a collective test");
  const calibration::NcclLog log = calibration::read_nccl_log(path, test.op);
  const std::optional<int> ranks = ranks_from_name ? ranks_from_name : log.ranks;
  if (!ranks) throw InputError(file, "ranks", "the log lists no devices: name it <test>@<ranks>.log");
  const int per_node = fabric.gpus_per_node();
  std::string sizes;
  bool planned = false;
  for (const auto nodes : test.nodes) {
    const std::int64_t gpus = nodes == 0 ? fabric.gpus() : nodes * per_node;
    planned = planned || gpus == *ranks;
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(gpus);
  }
  if (!planned) {
    throw InputError(file, "ranks", "a log of " + std::to_string(*ranks) + " ranks, but the plan runs " + test.id + " on " + sizes +
                                        " GPUs of this " + std::to_string(fabric.gpus()) + "-GPU build");
  }
  const std::int64_t nodes = (*ranks + per_node - 1) / per_node;
  for (const auto& row : log.rows) {
    out.values.push_back({test.id, "nodes=" + std::to_string(nodes) + " size=" + std::to_string(row.size.count()),
                          row.out_of_place.busbw_GBps, file + ":" + std::to_string(row.line)});
  }
}

// ib_send_bw / ib_send_lat (perftest) and osu_bw / osu_latency: the last data row (the largest
// size of a -a sweep). perftest's MB is 2^20 bytes (newer versions print MiB); OSU's MB is 10^6.
void read_p2p_text(const fs::path& path, const AcceptancePlan& plan, const fabric::Fabric& fabric, MeasuredSet& out) {
  const std::string file = path.string();
  const std::string stem = path.stem().string();
  const std::size_t dot = stem.find('.');
  if (dot == std::string::npos) throw InputError(file, "name", "expected <test>.<SRC>-<DST>.txt");
  const AcceptanceTest& test = require_test(plan, stem.substr(0, dot), file, "name");
  if (test.kind != AcceptanceKind::kP2p) throw InputError(file, "name", test.id + " is not a p2p test");
  std::string pair_text = stem.substr(dot + 1);
  const std::size_t dash = pair_text.find('-');
  if (dash != std::string::npos) pair_text.replace(dash, 1, "->");
  const auto pair = parse_pair_label(pair_text);
  if (!pair || pair->src >= fabric.gpus() || pair->dst >= fabric.gpus()) {
    throw InputError(file, "name", "'" + stem.substr(dot + 1) + "' is not SRC-DST, two GPUs of the build");
  }
  std::ifstream in(path);
  std::string line;
  double scale = 0;  // header unit to the metric's
  int column = -1;
  std::optional<double> value;
  int last_line = 0;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string text = trimmed(line);
    if (text.rfind("#bytes", 0) == 0 || text.rfind("# Size", 0) == 0) {
      std::istringstream header(text);
      std::vector<std::string> words;
      for (std::string w; header >> w;) words.push_back(w);
      const bool latency = test.metric == "latency";
      column = -1;
      if (text.rfind("#bytes", 0) == 0) {
        // "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]" or "... t_avg[usec] ..."
        int field = 0;
        for (std::size_t w = 0; w < words.size(); ++w) {
          const std::string& word = words[w];
          if (word == "BW") continue;  // "BW peak[..]" is two words, one column
          if (!latency && word.rfind("average[", 0) == 0) {
            column = field;
            scale = word.find("Gb/sec") != std::string::npos ? 1e9 / 8 / 1e9 : 1048576.0 / 1e9;
          }
          if (latency && word.rfind("t_avg[usec]", 0) == 0) {
            column = field;
            scale = 1;
          }
          if (word != "percentile[usec]") ++field;
        }
      } else {
        column = 1;
        const bool says_latency = text.find("Latency") != std::string::npos;
        if (says_latency != latency) throw InputError(file, "line " + std::to_string(line_number), "the output's metric is not " + test.metric);
        scale = latency ? 1 : 1e6 / 1e9;
      }
      if (column < 0) throw InputError(file, "line " + std::to_string(line_number), "no " + test.metric + " column in this header");
      continue;
    }
    if (column < 0 || text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) continue;
    std::istringstream row(text);
    std::vector<std::string> fields;
    for (std::string f; row >> f;) fields.push_back(f);
    if (static_cast<int>(fields.size()) <= column) continue;
    const auto figure = number(fields[static_cast<std::size_t>(column)]);
    if (!figure) throw InputError(file, "line " + std::to_string(line_number), "'" + fields[static_cast<std::size_t>(column)] + "' is not a number");
    value = *figure * scale;
    last_line = line_number;
  }
  if (!value) throw InputError(file, "", "no ib_send_bw/ib_send_lat or osu_bw/osu_latency result rows");
  out.values.push_back({test.id, pair_label(*pair), *value, file + ":" + std::to_string(last_line)});
}

}  // namespace

MeasuredSet read_measured(const std::string& dir, const AcceptancePlan& plan, const fabric::Fabric& fabric) {
  if (!is_folder_path(dir)) throw InputError(dir, "", "--measured needs a folder of measured results");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  MeasuredSet out;
  for (const auto& path : files) {
    const std::string ext = path.extension().string();
    if (ext == ".csv") {
      read_csv(path, plan, out);
    } else if (ext == ".log") {
      read_nccl(path, plan, fabric, out);
    } else if (ext == ".txt") {
      read_p2p_text(path, plan, fabric, out);
    } else if (path.filename().string().front() != '.' && path.filename() != "README.md") {
      throw InputError(path.string(), "", "not a measured result (expected .csv, nccl-tests .log or ib_send_bw/osu .txt)");
    }
  }
  if (out.values.empty()) throw InputError(dir, "", "no measured results in the folder");
  return out;
}

}  // namespace ctwin::api
