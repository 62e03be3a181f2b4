#include "ctwin/api/layer.hpp"

namespace ctwin::api {

LayerComparison compare_layers(const replay::LayerQuery& query, const std::string& measured,
                               const std::filesystem::path& repo_root) {
  const auto file = replay::read_layer_measurements(resolve_data_path(measured));
  LayerComparison out{file.source, file.gpu, query.gpu, {}};
  for (const auto& m : file.rows) {
    replay::LayerQuery q = query;
    q.model = m.model;
    q.seq_len = m.seq_len;
    q.micro_batch = m.micro_batch;
    q.tp = m.tp;
    q.precision = m.precision;
    const auto p = replay::predict_layer(q, repo_root);
    out.rows.push_back({m, p, p.forward_ms / m.forward_ms - 1, p.backward_ms / m.backward_ms - 1});
  }
  return out;
}

nlohmann::json layer_json(const replay::LayerPrediction& p) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : p.kernels) {
    kernels.push_back({{"name", k.name}, {"forward_us", k.forward_us}, {"backward_us", k.backward_us}});
  }
  return {{"model", p.model_name}, {"gpu", p.gpu_name}, {"forward_ms", p.forward_ms}, {"backward_ms", p.backward_ms},
          {"kernels", kernels}};
}

nlohmann::json layer_comparison_json(const LayerComparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [m, p, forward_error, backward_error] : c.rows) {
    rows.push_back({{"model", m.model}, {"seq_len", m.seq_len}, {"micro_batch", m.micro_batch}, {"tp", m.tp},
                    {"precision", m.precision}, {"phase", m.phase}, {"measured_forward_ms", m.forward_ms},
                    {"predicted_forward_ms", p.forward_ms}, {"forward_error", forward_error},
                    {"measured_backward_ms", m.backward_ms}, {"predicted_backward_ms", p.backward_ms},
                    {"backward_error", backward_error}});
    if (m.sm_clock_mhz) rows.back()["sm_clock_mhz"] = *m.sm_clock_mhz;
  }
  return {{"measured", c.source}, {"measured_gpu", c.measured_gpu}, {"gpu_profile", c.gpu_profile}, {"rows", rows}};
}

}  // namespace ctwin::api
