#include "ctwin/api/report_json.hpp"

namespace ctwin::api {

nlohmann::json traffic_json(const TrafficSummary& s, bool timing) {
  nlohmann::json out{{"pattern", s.pattern},
                     {"network", s.network},
                     {"gpus", s.gpus},
                     {"transfers", s.transfers},
                     {"size_bytes", s.size.count()},
                     {"bytes_delivered", s.bytes_delivered.count()},
                     {"makespan_us", s.makespan.microseconds()},
                     {"completion_us", {{"min", s.first_completion.microseconds()},
                                        {"median", s.median_completion.microseconds()},
                                        {"max", s.last_completion.microseconds()}}},
                     {"aggregate_GBps", s.aggregate_GBps},
                     {"events", s.events}};
  if (timing) out["wall_s"] = s.wall_s;
  if (s.solves) out["solves"] = *s.solves;
  if (s.solved_flows) out["solved_flows"] = *s.solved_flows;
  return out;
}

}  // namespace ctwin::api
