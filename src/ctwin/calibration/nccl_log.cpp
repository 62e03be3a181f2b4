#include "ctwin/calibration/nccl_log.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>
#include <istream>
#include <set>
#include <string_view>

#include "ctwin/core/error.hpp"
#include "ctwin/core/input_file.hpp"

namespace ctwin::calibration {
namespace {

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t at = 0;
  while (true) {
    at = text.find_first_not_of(" \t\r", at);
    if (at == std::string_view::npos) return fields;
    const std::size_t end = std::min(text.find_first_of(" \t\r", at), text.size());
    fields.push_back(text.substr(at, end - at));
    at = end;
  }
}

// "node01:41234:41290 [1] NCCL INFO Channel 00/32 ...": NCCL_DEBUG output.
bool is_nccl_message(std::string_view text) {
  return text.find(" NCCL INFO ") != std::string_view::npos || text.find(" NCCL WARN ") != std::string_view::npos;
}

bool is_unsigned_integer(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// Where each named field sits in a data row, as the column header laid it out.
struct Group {
  std::size_t time = 0, algbw = 0, busbw = 0;
  std::optional<std::size_t> wrong;
};
struct Layout {
  std::vector<std::string> names;  // one per field, for messages
  std::size_t size = 0;
  std::optional<std::size_t> count, type, redop, root;
  std::vector<Group> groups;  // out-of-place, then in-place
  int line = 0;
};

class Parser {
 public:
  Parser(std::string source, std::optional<NcclOp> op) : op_given_(op) {
    log_.source = std::move(source);
    log_.op = op;
  }

  void read(std::string_view text, int line) {
    const std::vector<std::string_view> fields = split_fields(text);
    if (fields.empty()) return;
    seen_text_ = true;
    if (fields.front().starts_with('#')) {
      comment(text.substr(text.find('#') + 1), line);
    } else if (layout_ && !footer_ && is_unsigned_integer(fields.front())) {
      data_row(fields, line);
    } else if (!log_.rows.empty() && !footer_ && !is_nccl_message(text)) {
      // NCCL's own messages interleave with the rows (connections are set up lazily), but
      // anything else between two rows means the file was edited or two runs were mixed.
      fail(line, 0, "neither a data row nor an NCCL message inside the table (rows from line " +
                        std::to_string(log_.rows.front().line) + ")");
    } else {
      ++log_.skipped_lines;
    }
  }

  NcclLog finish(int last_line) {
    if (!seen_text_) fail(1, 0, "empty file: expected nccl-tests output");
    if (!layout_) {
      fail(last_line, 0,
           "not nccl-tests output: no column header ('#  size  count  type ... time  algbw  busbw') in " +
               std::to_string(last_line) + " lines");
    }
    if (log_.rows.empty()) {
      fail(last_line, 0, "no data rows after the column header on line " + std::to_string(layout_->line));
    }
    // nccl-tests prints its `# nThread` header before the table and `# Avg bus bandwidth` after
    // it; a log that has the first without the second was cut short (a job killed, a copy
    // truncated), and its sweep is missing its large sizes.
    if (log_.threads && !footer_) {
      fail(last_line, 0, "truncated: no '# Avg bus bandwidth' line after the last row (line " +
                             std::to_string(log_.rows.back().line) + "), though the '# nThread' header says "
                             "this is nccl-tests output");
    }
    if (!ranks_.empty()) log_.ranks = static_cast<int>(ranks_.size());
    return std::move(log_);
  }

 private:
  [[noreturn]] void fail(int line, std::size_t field, const std::string& message) const {
    std::string where = "line " + std::to_string(line);
    if (field > 0) {
      where += ", column " + std::to_string(field);
      if (layout_ && field <= layout_->names.size()) where += " (" + layout_->names[field - 1] + ")";
    }
    throw InputError(log_.source, where, message);
  }

  void comment(std::string_view text, int line) {
    const std::vector<std::string_view> fields = split_fields(text);
    if (fields.empty()) return;
    note_op(fields, line);
    if (fields.size() >= 2 && fields[0] == "Rank" && is_unsigned_integer(fields[1])) {
      ranks_.insert(std::string(fields[1]));
    } else if (fields[0] == "nThread") {
      log_.threads = header_count(fields, "nThread", line);
      log_.gpus_per_thread = header_count(fields, "nGpus", line);
    } else if (text.find("Avg bus bandwidth") != std::string_view::npos) {
      const std::size_t colon = text.find(':');
      const std::vector<std::string_view> value =
          split_fields(colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1));
      if (value.empty()) fail(line, 0, "'Avg bus bandwidth' without a value");
      double step = 0;
      log_.avg_busbw_GBps = number(value.front(), line, 0, step);
      footer_ = true;
    } else if (fields[0] == "size" && contains(fields, "time") && contains(fields, "busbw")) {
      layout_ = column_header(fields, line);
      footer_ = false;
      table_start_ = log_.rows.size();
      table_sizes_.clear();
    }
  }

  static bool contains(const std::vector<std::string_view>& fields, std::string_view name) {
    for (const std::string_view field : fields) {
      if (field == name) return true;
    }
    return false;
  }

  std::optional<int> header_count(const std::vector<std::string_view>& fields, std::string_view key, int line) const {
    for (std::size_t i = 0; i + 1 < fields.size(); ++i) {
      if (fields[i] != key) continue;
      int value = 0;
      const auto [end, ec] = std::from_chars(fields[i + 1].data(), fields[i + 1].data() + fields[i + 1].size(), value);
      if (ec != std::errc() || end != fields[i + 1].data() + fields[i + 1].size() || value < 1) {
        fail(line, 0, std::string(key) + " must be a positive integer, got '" + std::string(fields[i + 1]) + "'");
      }
      return value;
    }
    return std::nullopt;
  }

  // nccl-tests names its binaries <op>_perf (<op>_perf_mpi when built with MPI); a log that
  // keeps its command line or "Collective test starting:" line names the op that way.
  void note_op(const std::vector<std::string_view>& fields, int line) {
    for (std::string_view field : fields) {
      const std::size_t slash = field.find_last_of('/');
      if (slash != std::string_view::npos) field.remove_prefix(slash + 1);
      while (!field.empty() && !std::isalnum(static_cast<unsigned char>(field.back()))) field.remove_suffix(1);
      while (!field.empty() && !std::isalnum(static_cast<unsigned char>(field.front()))) field.remove_prefix(1);
      if (!field.ends_with("_perf") && !field.ends_with("_perf_mpi")) continue;
      const std::optional<NcclOp> named = parse_nccl_op(field);
      if (!named) {
        fail(line, 0, "unsupported nccl-tests binary '" + std::string(field) + "' (expected one of " +
                          std::string(nccl_op_choices()) + ", with _perf)");
      }
      if (log_.op && *log_.op != *named) {
        const std::string previous(collectives::name(*log_.op));
        fail(line, 0, "the log names " + std::string(field) + " but is read as " + previous +
                          (op_given_ ? " (as asked)" : " (named earlier)"));
      }
      log_.op = named;
    }
  }

  Layout column_header(const std::vector<std::string_view>& fields, int line) const {
    Layout layout;
    layout.line = line;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const std::string_view name = fields[i];
      layout.names.emplace_back(name);
      if (name == "time") {
        layout.groups.push_back(Group{i, 0, 0, std::nullopt});
        continue;
      }
      if (layout.groups.empty()) {
        if (name == "size") layout.size = i;
        if (name == "count") layout.count = i;
        if (name == "type") layout.type = i;
        if (name == "redop") layout.redop = i;
        if (name == "root") layout.root = i;
        continue;
      }
      Group& group = layout.groups.back();
      const std::size_t offset = i - group.time;
      if (offset == 1 && name == "algbw") group.algbw = i;
      else if (offset == 2 && name == "busbw") group.busbw = i;
      else if (offset == 3 && (name == "#wrong" || name == "error")) group.wrong = i;
      else fail(line, i + 1, "unexpected column '" + std::string(name) + "' (a group is time algbw busbw [#wrong])");
    }
    for (const Group& group : layout.groups) {
      if (group.algbw == 0 || group.busbw == 0) fail(line, group.time + 1, "expected 'time algbw busbw'");
    }
    if (layout.groups.size() > 2) fail(line, 0, "more than two groups (out-of-place, in-place) of time columns");
    return layout;
  }

  double number(std::string_view text, int line, std::size_t field, double& step) const {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
      fail(line, field, "expected a number, got '" + std::string(text) + "'");
    }
    // The step of the last printed digit: 10^-(digits after the point) scaled by any exponent.
    const std::size_t exponent_at = text.find_first_of("eE");
    const std::string_view mantissa = text.substr(0, exponent_at);
    const std::size_t point = mantissa.find('.');
    const int decimals = point == std::string_view::npos ? 0 : static_cast<int>(mantissa.size() - point - 1);
    int exponent = 0;
    if (exponent_at != std::string_view::npos) {
      std::string_view digits = text.substr(exponent_at + 1);
      if (digits.starts_with('+')) digits.remove_prefix(1);
      std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    }
    step = std::pow(10.0, exponent - decimals);
    return value;
  }

  std::int64_t integer(std::string_view text, int line, std::size_t field) const {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
      fail(line, field, "expected an integer, got '" + std::string(text) + "'");
    }
    return value;
  }

  NcclTiming timing(const std::vector<std::string_view>& fields, const Group& group, int line) const {
    NcclTiming timing;
    timing.time_us = number(fields[group.time], line, group.time + 1, timing.step.time_us);
    timing.algbw_GBps = number(fields[group.algbw], line, group.algbw + 1, timing.step.algbw_GBps);
    timing.busbw_GBps = number(fields[group.busbw], line, group.busbw + 1, timing.step.busbw_GBps);
    if (group.wrong) timing.wrong = std::string(fields[*group.wrong]);
    // A collective that ran takes at least a launch (a few microseconds); a time printed as
    // zero or less is a corrupt row, and it would make every fitted parameter meaningless.
    if (!(timing.time_us > 0)) fail(line, group.time + 1, "time must be positive, got '" + std::string(fields[group.time]) + "'");
    if (timing.algbw_GBps < 0 || timing.busbw_GBps < 0) fail(line, group.algbw + 1, "bandwidth must not be negative");
    return timing;
  }

  void data_row(const std::vector<std::string_view>& fields, int line) {
    const Layout& layout = *layout_;
    const std::size_t expected = layout.names.size();
    if (fields.size() != expected) {
      fail(line, std::min(fields.size(), expected) + 1,
           std::string(fields.size() < expected ? "truncated row: " : "") + "expected " + std::to_string(expected) +
               " fields like the column header on line " + std::to_string(layout.line) + ", got " +
               std::to_string(fields.size()));
    }
    NcclRow row;
    row.line = line;
    row.size = Bytes(integer(fields[layout.size], line, layout.size + 1));
    // nccl-tests prints each size of its sweep once, ascending: a size again is a row pasted
    // twice, which the fit would weigh twice, and, in a log with nccl-tests' own `# nThread`
    // header, a smaller size is rows reordered by hand (issue 36). A bare table (a log's rows
    // copied without its header) keeps its order.
    const bool again = !table_sizes_.insert(row.size.count()).second;
    if (log_.rows.size() > table_start_ && (again || (log_.threads && row.size < log_.rows.back().size))) {
      fail(line, layout.size + 1,
           "size " + std::to_string(row.size.count()) +
               (again ? " again" : " after " + std::to_string(log_.rows.back().size.count()) + " on line " +
                                      std::to_string(log_.rows.back().line)) +
               ": nccl-tests prints each size once, ascending");
    }
    if (layout.count) row.count = integer(fields[*layout.count], line, *layout.count + 1);
    if (layout.type) row.type = std::string(fields[*layout.type]);
    if (layout.redop) row.redop = std::string(fields[*layout.redop]);
    if (layout.root) row.root = static_cast<int>(integer(fields[*layout.root], line, *layout.root + 1));
    row.out_of_place = timing(fields, layout.groups.front(), line);
    if (layout.groups.size() == 2) row.in_place = timing(fields, layout.groups.back(), line);
    log_.rows.push_back(std::move(row));
  }

  NcclLog log_;
  std::optional<NcclOp> op_given_;
  std::optional<Layout> layout_;
  std::set<std::string> ranks_;
  bool seen_text_ = false;
  bool footer_ = false;  // `# Avg bus bandwidth` seen: the table is over
  std::size_t table_start_ = 0;  // the current table's first row in log_.rows
  std::set<std::int64_t> table_sizes_;  // the sizes of the current table's rows
};

}  // namespace

NcclLog parse_nccl_log(std::istream& in, const std::string& source, std::optional<NcclOp> op) {
  Parser parser(source, op);
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    parser.read(text, line);
  }
  return parser.finish(std::max(line, 1));
}

NcclLog read_nccl_log(const std::filesystem::path& path, std::optional<NcclOp> op) {
  std::istringstream in(read_input_file(path));
  return parse_nccl_log(in, path.string(), op);
}

}  // namespace ctwin::calibration
