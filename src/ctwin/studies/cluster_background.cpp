#include "ctwin/studies/cluster_background.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/fabric/degradation.hpp"
#include "ctwin/fabric/router.hpp"
#include "ctwin/replay/cluster_replay.hpp"

namespace ctwin::api {
namespace {

// A stream may not ask for more than the slowest link of its path carries: that rate could never
// be given, and the report would only say so after a whole replay.
void check_background_rate(const fabric::Fabric& build, const std::vector<fabric::LinkId>& path, Bandwidth rate,
                           JsonObjectReader& reader, std::string_view key) {
  for (const fabric::LinkId link : path) {
    const Bandwidth capacity = build.link(link).achieved();
    if (rate > capacity) {
      reader.fail(key, format_bandwidth(rate) + " is above the " + format_bandwidth(capacity) + " of " +
                              replay::link_label(build, link) + " on its path");
    }
  }
}

// A stream's "rate", or its "schedule" of {"from_s", "rate"} steps (the first from 0, in time
// order, rate "0Gbps" for a pause, at least one step above 0): one of the two.
struct StreamRates {
  Bandwidth rate;  // constant, or the schedule's highest
  std::vector<replay::RateStep> schedule;
};

StreamRates read_stream_rates(JsonObjectReader& reader) {
  if (reader.has("rate") == reader.has("schedule")) {
    reader.fail(reader.has("rate") ? "schedule" : "rate", "a stream takes a \"rate\" or a \"schedule\", one of them");
  }
  if (reader.has("rate")) return {reader.bandwidth("rate"), {}};
  const nlohmann::json& steps = reader.required("schedule");
  const std::string pointer = reader.pointer_to("schedule");
  if (!steps.is_array() || steps.empty()) {
    throw InputError(reader.source(), pointer, "expected a list of {\"from_s\", \"rate\"} steps, the first from 0");
  }
  StreamRates out;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    JsonObjectReader step(steps[i], reader.source(), pointer + "/" + std::to_string(i));
    const double from_s = step.number("from_s", 0, 86400);
    if (i == 0 && from_s != 0) step.fail("from_s", "the first step starts the window: 0");
    if (i > 0 && SimTime::from_seconds(from_s) <= out.schedule.back().from) {
      step.fail("from_s", "steps are in time order, each after the one before");
    }
    // "0Gbps" pauses the stream; any other rate is read as a stream's rate is.
    bool pause = false;
    if (const nlohmann::json& raw = step.required("rate"); raw.is_string()) {
      try {
        pause = parse_bandwidth(raw.get<std::string>()).bytes_per_second() == 0;
      } catch (const UnitError&) {
        pause = false;  // bandwidth() below says what is wrong with it
      }
    }
    const Bandwidth rate = pause ? Bandwidth() : step.bandwidth("rate");
    step.finish();
    out.schedule.push_back({SimTime::from_seconds(from_s), rate});
    out.rate = std::max(out.rate, rate);
  }
  if (out.rate.bytes_per_second() <= 0) {
    throw InputError(reader.source(), pointer, "every step is 0: a stream of nothing is left out of the file");
  }
  return out;
}

std::int64_t read_background_node(const nlohmann::json& value, const std::string& source, const std::string& at,
                                  const fabric::Fabric& build) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < 0 || value.get<std::int64_t>() >= build.nodes()) {
    throw InputError(source, at, "expected a node of the build, 0 to " + std::to_string(build.nodes() - 1));
  }
  return value.get<std::int64_t>();
}

}  // namespace

std::vector<ClusterBackgroundStream> read_cluster_background(const nlohmann::json& list, const std::string& source,
                                                             const fabric::Fabric& build) {
  if (!list.is_array()) throw InputError(source, "/background", "expected a list of streams");
  std::vector<ClusterBackgroundStream> streams;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string pointer = "/background/" + std::to_string(i);
    JsonObjectReader r(list[i], source, pointer);
    const int entry = static_cast<int>(i);
    if (r.has("link") == r.has("nodes")) {
      throw InputError(source, pointer, "a stream takes a \"link\" (a cable's name) or \"nodes\" (with \"to\"), one of them");
    }
    if (r.has("link")) {
      const std::string name = r.string("link");
      std::string problem;
      const auto cable = fabric::find_named_cable(build, name, problem);
      if (!cable) r.fail("link", "'" + name + "': " + problem);
      const std::string direction = r.choice_or("direction", {"up", "down", "both"}, "both");
      const StreamRates rates = read_stream_rates(r);
      const Bandwidth rate = rates.rate;
      r.finish();
      // The cable's even direction is its way up (nic -> leaf, leaf -> spine).
      std::vector<fabric::LinkId> directed;
      if (direction != "down") directed.push_back(*cable);
      if (direction != "up") directed.push_back(fabric::reverse(*cable));
      for (const fabric::LinkId link : directed) {
        check_background_rate(build, {link}, rate, r, rates.schedule.empty() ? "rate" : "schedule");
        streams.push_back({entry, replay::link_label(build, link), {{link}, rate, rates.schedule}});
      }
      continue;
    }
    const nlohmann::json& nodes = r.required("nodes");
    if (!nodes.is_array() || nodes.empty()) throw InputError(source, pointer + "/nodes", "expected a list of the build's nodes");
    const std::int64_t to = read_background_node(r.required("to"), source, pointer + "/to", build);
    const std::string direction = r.choice_or("direction", {"out", "in", "both"}, "both");
    const StreamRates rates = read_stream_rates(r);
    const Bandwidth rate = rates.rate;
    r.finish();
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const std::string at = pointer + "/nodes/" + std::to_string(k);
      const std::int64_t node = read_background_node(nodes[k], source, at, build);
      if (node == to) throw InputError(source, at, "node " + std::to_string(node) + " is the stream's other end (\"to\")");
      // Each node's first GPU and its NIC stand for the node, as a storage client or another
      // tenant's process on it would use one NIC.
      const auto first_gpu = [&](std::int64_t n) { return static_cast<fabric::GpuId>(n * build.gpus_per_node()); };
      const auto add = [&](std::int64_t from, std::int64_t into) {
        std::vector<fabric::LinkId> path = fabric::route(build, first_gpu(from), first_gpu(into));
        check_background_rate(build, path, rate, r, rates.schedule.empty() ? "rate" : "schedule");
        streams.push_back(
            {entry, "n" + std::to_string(from) + " -> n" + std::to_string(into), {std::move(path), rate, rates.schedule}});
      };
      if (direction != "in") add(node, to);
      if (direction != "out") add(to, node);
    }
  }
  return streams;
}

}  // namespace ctwin::api
