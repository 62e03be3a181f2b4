#include "ctwin/workload/pipeline_layout.hpp"

#include <cctype>

namespace ctwin::workload {
namespace {

constexpr std::size_t kMaxExpanded = std::size_t{1} << 20;
// Groups nest by recursion: 30,000 '(' overflowed the stack (issue 36). Megatron's layouts nest
// one or two deep.
constexpr std::size_t kMaxNesting = 16;

struct Expander {
  const std::string& text;
  std::size_t at = 0;
  std::optional<std::string> error;
  std::size_t depth = 0;  // groups open at `at`

  // The count after a '*' (at points past the '*').
  std::size_t count() {
    std::size_t digits = 0;
    std::size_t value = 0;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0 && value < kMaxExpanded) {
      value = value * 10 + static_cast<std::size_t>(text[at++] - '0');
      ++digits;
    }
    if (digits == 0) error = "expected a count after '*' at character " + std::to_string(at + 1);
    return value;
  }

  std::string repeat(const std::string& unit, std::size_t times) {
    if (unit.size() * times > kMaxExpanded) {
      error = "expands to more than " + std::to_string(kMaxExpanded) + " characters";
      return {};
    }
    std::string out;
    for (std::size_t i = 0; i < times; ++i) out += unit;
    return out;
  }

  // A sequence up to the end or an unmatched ')'.
  std::string sequence() {
    std::string out;
    while (at < text.size() && !error && text[at] != ')') {
      std::string unit;
      if (text[at] == '(') {
        if (++depth > kMaxNesting) {
          error = "parentheses nested deeper than " + std::to_string(kMaxNesting) + " at character " + std::to_string(at + 1);
          return {};
        }
        ++at;
        unit = sequence();
        --depth;
        if (error) return {};
        if (at >= text.size() || text[at] != ')') {
          error = "unclosed '('";
          return {};
        }
        ++at;
      } else if (text[at] == ' ') {
        ++at;
        continue;
      } else {
        unit = std::string(1, text[at++]);
      }
      if (at < text.size() && text[at] == '*') {
        ++at;
        unit = repeat(unit, count());
      }
      out += unit;
      if (out.size() > kMaxExpanded) error = "expands to more than " + std::to_string(kMaxExpanded) + " characters";
    }
    return out;
  }
};

}  // namespace

ParsedLayout parse_pipeline_layout(const std::string& text) {
  ParsedLayout out;
  Expander expander{text, 0, std::nullopt, 0};
  const std::string flat = expander.sequence();
  if (!expander.error && expander.at != text.size()) expander.error = "unmatched ')'";
  if (expander.error) {
    out.error = *expander.error;
    return out;
  }
  std::vector<std::string> stages(1);
  for (char c : flat) {
    if (c == '|') {
      stages.emplace_back();
    } else {
      stages.back() += c;
    }
  }
  for (std::size_t s = 0; s < stages.size(); ++s) {
    std::int64_t layers = 0;
    const std::string& stage = stages[s];
    for (std::size_t i = 0; i < stage.size(); ++i) {
      const char c = stage[i];
      if (c == 't') {
        ++layers;
      } else if (c == 'E') {
        if (s != 0 || i != 0) out.error = "'E' (the embedding) must open the first stage";
      } else if (c == 'L') {
        if (s + 1 != stages.size() || i + 1 != stage.size()) out.error = "'L' (the loss) must close the last stage";
      } else if (c == 'm') {
        out.error = "'m' (an MTP layer): multi-token prediction is not modelled";
      } else {
        out.error = std::string("unknown layer '") + c + "' (expected E, t, m, L, '|', '*N' and parentheses)";
      }
      if (out.error) return out;
    }
    out.layers.push_back(layers);
  }
  return out;
}

}  // namespace ctwin::workload
