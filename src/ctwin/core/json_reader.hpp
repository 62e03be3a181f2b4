#pragma once
// Strict reading of JSON input files. Every key must be read or the reader reports it as
// unknown; every quantity must carry a unit; every failure names the file and the JSON pointer
// of the offending field.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/core/units.hpp"

namespace ctwin {

/// Parses a JSON file; a missing file, a directory, a syntax error, a number beyond double's
/// range (1e999) or a key given twice in one object becomes an InputError naming the file (and
/// the line and column where nlohmann reports one, or the pointer of the repeated key).
[[nodiscard]] nlohmann::json load_json_file(const std::filesystem::path& path);

/// The same for JSON text already in memory; `source` names it in errors.
[[nodiscard]] nlohmann::json parse_json_text(const std::string& text, const std::string& source);

/// Reads one JSON object field by field, remembering which keys were read so that `finish()`
/// can reject the rest. Copies are cheap views: it holds a reference to the object.
class JsonObjectReader {
 public:
  JsonObjectReader(const nlohmann::json& object, std::string source, std::string pointer);

  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] const nlohmann::json& required(std::string_view key);
  [[nodiscard]] const nlohmann::json* optional(std::string_view key);

  [[nodiscard]] std::string string(std::string_view key);
  [[nodiscard]] std::string string_or(std::string_view key, std::string fallback);
  /// One of `choices`, else an error listing them.
  [[nodiscard]] std::string choice(std::string_view key, const std::vector<std::string>& choices);
  [[nodiscard]] std::string choice_or(std::string_view key, const std::vector<std::string>& choices,
                                      std::string fallback);
  [[nodiscard]] std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);
  [[nodiscard]] std::int64_t integer_or(std::string_view key, std::int64_t min, std::int64_t max,
                                        std::int64_t fallback);
  [[nodiscard]] double number(std::string_view key, double min, double max);
  [[nodiscard]] double number_or(std::string_view key, double min, double max, double fallback);
  [[nodiscard]] bool boolean(std::string_view key);
  [[nodiscard]] bool boolean_or(std::string_view key, bool fallback);
  [[nodiscard]] std::vector<std::string> string_list(std::string_view key);
  [[nodiscard]] std::vector<std::string> string_list_or_empty(std::string_view key);

  /// A rate such as "400Gbps", within the range policy (core/limits.hpp): 1 Mbps to 100 Tbps.
  [[nodiscard]] Bandwidth bandwidth(std::string_view key);
  /// A duration such as "600ns", from 0 to 1 s.
  [[nodiscard]] SimTime duration(std::string_view key);
  [[nodiscard]] SimTime duration_or(std::string_view key, SimTime fallback);
  /// A duration from 0 to `most`, for times longer than a link's (a storage tier's latency).
  [[nodiscard]] SimTime duration_up_to(std::string_view key, SimTime most);
  /// A compute rate such as "989.4TFLOPS", from 1 GFLOPS to 1 EFLOPS.
  [[nodiscard]] FlopRate flop_rate(std::string_view key);
  /// A capacity such as "80GiB", from 1 B to 1 PiB.
  [[nodiscard]] Bytes bytes(std::string_view key);

  /// A nested object, read by its own reader (call its finish() too).
  [[nodiscard]] JsonObjectReader object(std::string_view key);
  /// The nested object if present and not null.
  [[nodiscard]] std::optional<JsonObjectReader> optional_object(std::string_view key);

  /// Rejects any key that was never read.
  void finish() const;

  [[nodiscard]] std::string pointer_to(std::string_view key) const;
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] const std::string& pointer() const { return pointer_; }
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;

 private:
  const nlohmann::json* object_;
  std::string source_;
  std::string pointer_;
  std::vector<std::string> read_keys_;
};

}  // namespace ctwin
