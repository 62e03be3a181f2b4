#include "ctwin/api/report_json.hpp"

namespace ctwin::api {

nlohmann::json collective_json(const collectives::CollectiveResult& result) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : result.rows) {
    rows.push_back({{"size_bytes", row.size.count()},
                    {"count", row.count},
                    {"time_us", row.time.seconds() * 1e6},
                    {"algbw_GBps", row.algbw_GBps},
                    {"busbw_GBps", row.busbw_GBps},
                    {"algo", collectives::name(row.algorithm)},
                    {"protocol", collectives::name(row.protocol)}});
  }
  return nlohmann::json{{"op", collectives::name(result.op)}, {"gpus", result.gpus}, {"channels", result.channels},
                        {"rows", rows}};
}

}  // namespace ctwin::api
