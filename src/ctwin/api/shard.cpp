#include "ctwin/api/shard.hpp"

#include <cstdio>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::api {

void parse_shard(const std::string& text, std::size_t& index, std::size_t& count) {
  const auto slash = text.find('/');
  const auto number = [&](const std::string& part) -> std::size_t {
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos) {
      throw InputError("--shard", "", "'" + text + "': expected i/N with 1 <= i <= N, e.g. 2/8");
    }
    return std::stoul(part);
  };
  if (slash == std::string::npos) throw InputError("--shard", "", "'" + text + "': expected i/N, e.g. 2/8");
  const std::size_t i = number(text.substr(0, slash));
  const std::size_t n = number(text.substr(slash + 1));
  if (n < 1 || i < 1 || i > n) throw InputError("--shard", "", "'" + text + "': expected i/N with 1 <= i <= N");
  index = i - 1;
  count = n;
}

void ShardSet::add(std::size_t index, std::size_t count, const std::string& source) {
  if (seen_.empty()) count_ = count;
  if (count != count_) {
    throw InputError(source, "/shard/count", "is a shard of " + std::to_string(count) + ", the first file's of " +
                                                 std::to_string(count_));
  }
  if (index < 1 || index > count || !seen_.insert(index).second) {
    throw InputError(source, "/shard/index",
                     "shard " + std::to_string(index) + "/" + std::to_string(count) + " is given twice or is out of range");
  }
}

void ShardSet::check_complete() const {
  if (seen_.size() != count_ || count_ == 0) {
    throw InputError("--merge", "", "got " + std::to_string(seen_.size()) + " of " + std::to_string(count_) + " shards");
  }
}

std::string scenario_fingerprint(const Scenario& scenario) {
  std::string text = json_text(scenario.document());
  for (const auto& change : scenario.changes()) text += "\n" + change.path + "=" + json_text(change.value);
  return fingerprint(text);
}

std::string fingerprint(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

}  // namespace ctwin::api
