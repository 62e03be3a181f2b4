#include "ctwin/workload/model_limits.hpp"

#include <algorithm>
#include <cstdio>

#include "ctwin/core/error.hpp"

namespace ctwin::workload {

void check_model_size(const ModelSpec& model, const std::string& source) {
  const auto d = [](std::int64_t v) { return static_cast<double>(v); };
  // The widest thing a layer's matrices can span on either side.
  const double qk = d(model.mla.qk_nope_head_dim) + d(model.mla.qk_rope_head_dim);
  const double width = std::max({d(model.hidden), d(model.ffn_hidden), d(model.moe.expert_ffn_hidden),
                                 d(model.heads) * d(model.head_dim), d(model.kv_heads) * d(model.head_dim),
                                 d(model.heads) * std::max(qk, d(model.mla.v_head_dim)), d(model.mla.q_lora_rank),
                                 d(model.mla.kv_lora_rank), d(model.moe.experts)});
  // Per layer: attention (at most 4 width² matrices, 6 with MLA's low-rank pairs) and every
  // expert's or the dense MLP's 3 matrices; plus embeddings, output and positions.
  const double experts = model.has_moe ? d(model.moe.experts) + d(model.moe.shared_experts) + 1 : 1;
  const double per_layer = (6 + 3 * experts) * width * width;
  const double bound = d(model.layers) * per_layer + 2 * d(model.vocab) * d(model.hidden) +
                       d(model.max_positions) * d(model.hidden);
  if (!(bound <= kMaxModelParameters)) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "its dimensions allow up to %.3g parameters, above the limit of 2^50 (1.1e15): a dimension is "
                  "mistyped",
                  bound);
    throw InputError(source, "", text);
  }
}

}  // namespace ctwin::workload
