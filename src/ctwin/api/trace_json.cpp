#include "ctwin/api/report_json.hpp"

#include <string>

namespace ctwin::api {
namespace {

const char* stream_name(replay::Stream s) {
  switch (s) {
    case replay::Stream::kCompute: return "compute";
    case replay::Stream::kTp: return "tp";
    case replay::Stream::kPp: return "pp";
    case replay::Stream::kDp: return "dp";
    case replay::Stream::kCp: return "cp";
    case replay::Stream::kEp: return "ep";
  }
  return "compute";
}

}  // namespace

nlohmann::json chrome_trace_json(const replay::ReplayResult& replay) {
  nlohmann::json events = nlohmann::json::array();
  for (std::size_t r = 0; r < replay.ranks.size(); ++r) {
    const std::size_t per_stage = static_cast<std::size_t>(replay.ranks_per_stage);
    const std::string name = per_stage == 1 ? "pipeline rank " + std::to_string(r)
                                            : "stage " + std::to_string(r / per_stage) + " rank " + std::to_string(r % per_stage);
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", r}, {"args", {{"name", name}}}});
    for (int s = 0; s < replay::kStreams; ++s) {
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", s},
                        {"args", {{"name", stream_name(static_cast<replay::Stream>(s))}}}});
    }
    for (const auto& b : replay.ranks[r].busy) {
      nlohmann::json e{{"name", b.name}, {"ph", "X"}, {"pid", r}, {"tid", static_cast<int>(b.stream)},
                       {"ts", b.start.microseconds()}, {"dur", (b.end - b.start).microseconds()}};
      if (b.micro_batch >= 0) {
        e["args"] = {{"pass", b.forward ? "forward" : "backward"}, {"chunk", b.chunk}, {"micro_batch", b.micro_batch}};
      }
      events.push_back(std::move(e));
    }
  }
  return nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace ctwin::api
