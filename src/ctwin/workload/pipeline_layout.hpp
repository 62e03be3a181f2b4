#pragma once
// Megatron-Core's --pipeline-model-parallel-layout: which layers each virtual pipeline stage holds,
// written as its own syntax. Stages are separated by '|' and listed in virtual-stage order (stage
// v = chunk·pp + pipeline rank, as Megatron numbers them); inside a stage, 'E' is the embedding,
// 't' a transformer layer, 'm' an MTP layer and 'L' the loss (output layer). "x*N" repeats x N
// times and "(...)*N" repeats a group, so "Et*3|(tt|)*29m|L" is the embedding and 3 layers, 29
// stages of 2, then the MTP and the loss in stages of their own.
// ctwin needs the embedding first in the first stage and the loss last in the last one (where
// Megatron requires them too) and has no MTP model, so 'm' is refused.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ctwin::workload {

/// Transformer layers per virtual stage, or the reason the text is not a layout ctwin models.
struct ParsedLayout {
  std::vector<std::int64_t> layers;
  std::optional<std::string> error;
};

[[nodiscard]] ParsedLayout parse_pipeline_layout(const std::string& text);

}  // namespace ctwin::workload
