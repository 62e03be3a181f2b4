#include "ctwin/core/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "ctwin/core/error.hpp"
#include "ctwin/core/input_file.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/core/unit_parse.hpp"

namespace ctwin {
namespace {

// RFC 6901 escaping so that pointers stay valid for keys containing '/' or '~'.
std::string escape_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string type_name(const nlohmann::json& value) { return value.type_name(); }

// nlohmann keeps the last of repeated keys without a word; a strict reader must not. The parser
// callback sees every key before it is stored: track the keys of each open object, and the
// path to it for the message.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(std::string source) : source_(std::move(source)) {}

  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        enter();
        // nlohmann parses without recursion, but copies, compares and prints values recursively:
        // a document nested 100,000 deep overflowed the stack later, in a copy (issue 36).
        if (frames_.size() >= limits::kMaxJsonDepth) {
          throw InputError(source_, "", "arrays and objects nested deeper than " +
                                            std::to_string(limits::kMaxJsonDepth) + " levels");
        }
        frames_.push_back({event == Event::object_start, {}, {}, 0});
        break;
      case Event::key: {
        Frame& frame = frames_.back();
        frame.key = parsed.get<std::string>();
        if (std::find(frame.keys.begin(), frame.keys.end(), frame.key) != frame.keys.end()) {
          throw InputError(source_, pointer(), "key given twice in one object");
        }
        frame.keys.push_back(frame.key);
        break;
      }
      case Event::object_end:
      case Event::array_end:
        frames_.pop_back();
        break;
      case Event::value:
        enter();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object;
    std::vector<std::string> keys;
    std::string key;
    std::size_t next_index;  // arrays: the index the next element gets
  };

  // A value (or a nested object or array) begins inside the innermost open container.
  void enter() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().next_index;
  }

  std::string pointer() const {
    std::string text;
    for (const Frame& frame : frames_) {
      text += "/" + (frame.object ? escape_token(frame.key) : std::to_string(frame.next_index - 1));
    }
    return text;
  }

  std::string source_;
  std::vector<Frame> frames_;
};

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text, DuplicateKeyCheck(source));
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    const auto colon = what.find("] ");
    throw InputError(source, "", "malformed JSON: " + (colon == std::string::npos ? what : what.substr(colon + 2)));
  } catch (const nlohmann::json::out_of_range& e) {
    // 406: a number beyond double's range, such as 1e999 (nlohmann gives no position).
    throw InputError(source, "", "a number is out of range (beyond +-1.8e308)");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source, "", std::string("malformed JSON: ") + e.what());
  }
}

nlohmann::json load_json_file(const std::filesystem::path& path) {
  return parse_json_text(read_input_file(path), input_source_name(path));
}

JsonObjectReader::JsonObjectReader(const nlohmann::json& object, std::string source, std::string pointer)
    : object_(&object), source_(std::move(source)), pointer_(std::move(pointer)) {
  if (!object.is_object()) {
    throw InputError(source_, pointer_.empty() ? "/" : pointer_, "expected an object, got " + type_name(object));
  }
}

std::string JsonObjectReader::pointer_to(std::string_view key) const { return pointer_ + "/" + escape_token(key); }

void JsonObjectReader::fail(std::string_view key, const std::string& message) const {
  throw InputError(source_, key.empty() ? pointer_ : pointer_to(key), message);
}

bool JsonObjectReader::has(std::string_view key) const {
  const auto it = object_->find(key);
  return it != object_->end() && !it->is_null();
}

const nlohmann::json* JsonObjectReader::optional(std::string_view key) {
  read_keys_.emplace_back(key);
  const auto it = object_->find(key);
  if (it == object_->end() || it->is_null()) return nullptr;
  return &*it;
}

const nlohmann::json& JsonObjectReader::required(std::string_view key) {
  const nlohmann::json* value = optional(key);
  if (value == nullptr) fail(key, "missing required field");
  return *value;
}

std::string JsonObjectReader::string(std::string_view key) {
  const auto& value = required(key);
  if (!value.is_string()) fail(key, "expected a string, got " + type_name(value));
  return value.get<std::string>();
}

std::string JsonObjectReader::string_or(std::string_view key, std::string fallback) {
  return has(key) ? string(key) : (read_keys_.emplace_back(key), std::move(fallback));
}

std::string JsonObjectReader::choice(std::string_view key, const std::vector<std::string>& choices) {
  std::string value = string(key);
  if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "'" : ", '") + c + "'";
    fail(key, "unknown value '" + value + "' (expected one of " + list + ")");
  }
  return value;
}

std::string JsonObjectReader::choice_or(std::string_view key, const std::vector<std::string>& choices,
                                        std::string fallback) {
  return has(key) ? choice(key, choices) : (read_keys_.emplace_back(key), std::move(fallback));
}

std::int64_t JsonObjectReader::integer(std::string_view key, std::int64_t min, std::int64_t max) {
  const auto& value = required(key);
  std::int64_t result = 0;
  if (value.is_number_integer()) {
    result = value.get<std::int64_t>();
  } else if (value.is_number_float() && std::floor(value.get<double>()) == value.get<double>() &&
             std::fabs(value.get<double>()) < 9e18) {
    result = static_cast<std::int64_t>(value.get<double>());
  } else {
    fail(key, "expected an integer, got " + value.dump());
  }
  if (result < min || result > max) {
    fail(key, value.dump() + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return result;
}

std::int64_t JsonObjectReader::integer_or(std::string_view key, std::int64_t min, std::int64_t max,
                                          std::int64_t fallback) {
  return has(key) ? integer(key, min, max) : (read_keys_.emplace_back(key), fallback);
}

double JsonObjectReader::number(std::string_view key, double min, double max) {
  const auto& value = required(key);
  if (!value.is_number()) fail(key, "expected a number, got " + value.dump());
  const double result = value.get<double>();
  if (!(result >= min && result <= max)) {
    std::ostringstream text;
    text << value.dump() << " is out of range [" << min << ", " << max << "]";
    fail(key, text.str());
  }
  return result;
}

double JsonObjectReader::number_or(std::string_view key, double min, double max, double fallback) {
  return has(key) ? number(key, min, max) : (read_keys_.emplace_back(key), fallback);
}

bool JsonObjectReader::boolean(std::string_view key) {
  const auto& value = required(key);
  if (!value.is_boolean()) fail(key, "expected true or false, got " + value.dump());
  return value.get<bool>();
}

bool JsonObjectReader::boolean_or(std::string_view key, bool fallback) {
  return has(key) ? boolean(key) : (read_keys_.emplace_back(key), fallback);
}

std::vector<std::string> JsonObjectReader::string_list(std::string_view key) {
  const auto& value = required(key);
  if (!value.is_array()) fail(key, "expected an array of strings, got " + type_name(value));
  std::vector<std::string> result;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      throw InputError(source_, pointer_to(key) + "/" + std::to_string(i), "expected a string, got " + value[i].dump());
    }
    result.push_back(value[i].get<std::string>());
  }
  return result;
}

std::vector<std::string> JsonObjectReader::string_list_or_empty(std::string_view key) {
  return has(key) ? string_list(key) : (read_keys_.emplace_back(key), std::vector<std::string>{});
}

namespace {

template <typename Parse>
auto parse_quantity(JsonObjectReader& reader, std::string_view key, const nlohmann::json& value, Parse parse,
                    const char* example) {
  if (!value.is_string()) {
    reader.fail(key, "expected a quantity with a unit such as '" + std::string(example) + "', got " + value.dump());
  }
  try {
    return parse(value.get<std::string>());
  } catch (const UnitError& e) {
    reader.fail(key, e.what());
  }
}

}  // namespace

Bandwidth JsonObjectReader::bandwidth(std::string_view key) {
  const Bandwidth rate = parse_quantity(*this, key, required(key), parse_bandwidth, "400Gbps");
  if (const auto problem = limits::bandwidth_problem(rate)) fail(key, *problem);
  return rate;
}

FlopRate JsonObjectReader::flop_rate(std::string_view key) {
  const FlopRate rate = parse_quantity(*this, key, required(key), parse_flop_rate, "989.4TFLOPS");
  if (const auto problem = limits::flop_rate_problem(rate)) fail(key, *problem);
  return rate;
}

SimTime JsonObjectReader::duration(std::string_view key) {
  const SimTime time = parse_quantity(*this, key, required(key), parse_time, "600ns");
  if (const auto problem = limits::latency_problem(time)) fail(key, *problem);
  return time;
}

SimTime JsonObjectReader::duration_up_to(std::string_view key, SimTime most) {
  const SimTime time = parse_quantity(*this, key, required(key), parse_time, "10s");
  if (time < SimTime()) fail(key, "duration must not be negative");
  if (time > most) fail(key, "duration " + format_time(time) + " is above " + format_time(most));
  return time;
}

SimTime JsonObjectReader::duration_or(std::string_view key, SimTime fallback) {
  return has(key) ? duration(key) : (read_keys_.emplace_back(key), fallback);
}

Bytes JsonObjectReader::bytes(std::string_view key) {
  const Bytes size = parse_quantity(*this, key, required(key), parse_bytes, "80GiB");
  if (const auto problem = limits::capacity_problem(size)) fail(key, *problem);
  return size;
}

JsonObjectReader JsonObjectReader::object(std::string_view key) {
  return JsonObjectReader(required(key), source_, pointer_to(key));
}

std::optional<JsonObjectReader> JsonObjectReader::optional_object(std::string_view key) {
  const nlohmann::json* value = optional(key);
  if (value == nullptr) return std::nullopt;
  return JsonObjectReader(*value, source_, pointer_to(key));
}

void JsonObjectReader::finish() const {
  for (const auto& item : object_->items()) {
    if (std::find(read_keys_.begin(), read_keys_.end(), item.key()) == read_keys_.end()) {
      fail(item.key(), "unknown field");
    }
  }
}

}  // namespace ctwin
