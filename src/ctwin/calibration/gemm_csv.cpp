#include "ctwin/calibration/gemm_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "ctwin/core/error.hpp"
#include "ctwin/core/input_file.hpp"
#include "ctwin/core/limits.hpp"

namespace ctwin::calibration {
namespace {

std::string trim(std::string text) {
  const auto first = text.find_first_not_of(" \t\r");
  const auto last = text.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    cells.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return cells;
    start = comma + 1;
  }
}

class Locator {
 public:
  explicit Locator(std::string source) : source_(std::move(source)) {}
  [[noreturn]] void fail(int line, std::size_t column, const std::string& name, const std::string& message) const {
    std::string where = "line " + std::to_string(line);
    if (column > 0) where += ", column " + std::to_string(column) + (name.empty() ? "" : " (" + name + ")");
    throw InputError(source_, where, message);
  }

 private:
  std::string source_;
};

}  // namespace

GemmSweep read_gemm_csv(const std::filesystem::path& path, MeasurementColumn measurement) {
  GemmSweep sweep{path.string(), {}};
  const Locator at(sweep.source);
  std::istringstream in(read_input_file(path));

  std::map<std::string, std::size_t> columns;  // name -> 0-based index
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, int, std::string>, int> lines_of_shapes;  // shape -> its line
  std::vector<std::string> header;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    text = trim(text);
    if (text.empty() || text.front() == '#') continue;
    const std::vector<std::string> cells = split(text);
    if (header.empty()) {
      header = cells;
      for (std::size_t i = 0; i < cells.size(); ++i) columns.emplace(cells[i], i);
      for (const char* required : {"m", "n", "k", "dtype"}) {
        if (!columns.contains(required)) {
          at.fail(line, 0, "", "missing column '" + std::string(required) +
                                   "' (expected a header with m, n, k, dtype and time_us or tflops)");
        }
      }
      if (measurement == MeasurementColumn::kRequired && !columns.contains("time_us") && !columns.contains("tflops")) {
        at.fail(line, 0, "", "missing column 'time_us' or 'tflops' (the measurement to calibrate against)");
      }
      continue;
    }
    if (cells.size() != header.size()) {
      at.fail(line, std::min(cells.size(), header.size()) + 1, "",
              "expected " + std::to_string(header.size()) + " fields like the header, got " + std::to_string(cells.size()));
    }
    auto cell = [&](const std::string& name) -> std::pair<const std::string&, std::size_t> {
      const std::size_t index = columns.at(name);
      return {cells[index], index + 1};
    };
    GemmMeasurement row;
    row.line = line;
    std::int64_t* sizes[] = {&row.shape.m, &row.shape.n, &row.shape.k};
    const char* size_names[] = {"m", "n", "k"};
    for (int i = 0; i < 3; ++i) {
      const auto [value, column] = cell(size_names[i]);
      std::int64_t size = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), size);
      if (ec != std::errc() || end != value.data() + value.size() || size <= 0) {
        at.fail(line, column, size_names[i], "size must be a positive integer, got '" + value + "'");
      }
      if (size > limits::kMaxGemmDim) at.fail(line, column, size_names[i], "size " + value + " is above 16777216 (2^24)");
      *sizes[i] = size;
    }
    {
      const auto [value, column] = cell("dtype");
      if (!compute::parse_dtype(value, row.shape.dtype)) {
        at.fail(line, column, "dtype", "unknown dtype '" + value + "' (expected " + compute::dtype_choices() + ")");
      }
    }
    const bool has_time = columns.contains("time_us");
    if (has_time || columns.contains("tflops")) {
      const auto [value, column] = cell(has_time ? "time_us" : "tflops");
      double number = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
      if (ec != std::errc() || end != value.data() + value.size() || !(number > 0) || !std::isfinite(number)) {
        at.fail(line, column, has_time ? "time_us" : "tflops", "must be a positive number, got '" + value + "'");
      }
      // One kernel: at most an hour, at most 1 EFLOP/s (core/limits.hpp).
      if (has_time ? number > 3.6e9 : number * 1e12 > limits::kMaxFlopsPerSecond) {
        at.fail(line, column, has_time ? "time_us" : "tflops",
                has_time ? "a kernel time above one hour, got '" + value + "'" : "a rate above 1 EFLOP/s, got '" + value + "'");
      }
      row.time_s = has_time ? number * 1e-6 : row.shape.flops().count() / (number * 1e12);
    }
    // One time per shape: a repeated shape (a file concatenated twice, an edited copy) would
    // weigh in the fit twice or, timed differently, fit the mean of two claims (issue 36).
    if (has_time || columns.contains("tflops")) {
      // A file of several GPUs' bests (validation/gemm/mamf.csv) names each row's GPU.
      const std::string gpu = columns.contains("gpu") ? cell("gpu").first : std::string();
      const auto [same, first] = lines_of_shapes.try_emplace(
          std::tuple(row.shape.m, row.shape.n, row.shape.k, static_cast<int>(row.shape.dtype), gpu), line);
      if (!first) {
        at.fail(line, 0, "", "the shape of line " + std::to_string(same->second) +
                                 " again: give one measurement per shape (the median of repeats)");
      }
    }
    sweep.rows.push_back(row);
  }
  if (header.empty()) at.fail(std::max(line, 1), 0, "", "empty file: expected a header line with m, n, k, dtype");
  if (sweep.rows.empty()) at.fail(line, 0, "", "no data rows after the header");
  return sweep;
}

}  // namespace ctwin::calibration
