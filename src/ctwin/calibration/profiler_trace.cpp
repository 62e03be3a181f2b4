#include "ctwin/calibration/profiler_trace.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::calibration {
namespace {

constexpr double kMaxKernelInstances = 1e12;

bool starts_with(const std::string& s, std::string_view head) { return s.rfind(head, 0) == 0; }

// The twin's ops that are not part of a transformer layer's forward or backward.
bool twin_op_outside_layers(const std::string& name) {
  for (std::string_view head : {"embedding", "position_embedding", "final_norm", "logits", "cross_entropy", "pp_send",
                                "dp_", "expert_dp_", "adam"}) {
    if (starts_with(name, head)) return true;
  }
  return false;
}

struct Range {
  double start = 0, end = 0;
  TracePhase phase = TracePhase::kOutsideLayers;
  std::int64_t device = -1;  ///< GPU-side ranges only
};

// The layers a trace's ranges say it ran: distinct "layer<i>" names, else (DualPipe's unnumbered
// sub-layer ranges) how many times the most repeated forward range recurs.
struct LayerRanges {
  std::set<std::string> numbered;
  std::map<std::string, std::int64_t> forward_repeats;
  [[nodiscard]] std::int64_t count() const {
    if (!numbered.empty()) return static_cast<std::int64_t>(numbered.size());
    std::int64_t most = 0;
    for (const auto& [name, n] : forward_repeats) most = std::max(most, n);
    return most;
  }
};

bool range_name_ends_with(const std::string& s, std::string_view tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// "layer3/forward" -> forward, layer 3. DeepSeek's DualPipe profiles (deepseek-ai/profile-data)
// name a layer's pieces "attn(F)", "mlp(B)", "dispatch(W)": F is the forward, B the backward for
// inputs and W the backward for weights, so both B and W are the backward. Anything else
// (optimizer, an unknown range) is outside.
TracePhase phase_of_range(const std::string& name, LayerRanges& layers) {
  if (range_name_ends_with(name, "(F)")) {
    ++layers.forward_repeats[name];
    return TracePhase::kForward;
  }
  if (range_name_ends_with(name, "(B)") || range_name_ends_with(name, "(W)")) return TracePhase::kBackward;
  std::set<std::string>& numbered = layers.numbered;
  const auto slash = name.find('/');
  if (!starts_with(name, "layer") || slash == std::string::npos) return TracePhase::kOutsideLayers;
  const std::string phase = name.substr(slash + 1);
  if (phase != "forward" && phase != "backward") return TracePhase::kOutsideLayers;
  numbered.insert(name.substr(0, slash));
  return phase == "forward" ? TracePhase::kForward : TracePhase::kBackward;
}

// The innermost range holding t that names a phase: a layer's ranges sit inside wider ones (DualPipe's
// "1F1B" around a chunk pair) and may hold narrower unnamed ones of the user's own.
const Range* holding(const std::vector<Range>& ranges, double t, std::int64_t device) {
  const Range* inner = nullptr;
  for (const auto& r : ranges) {
    if (t < r.start || t >= r.end || (r.device >= 0 && r.device != device)) continue;
    if (r.phase == TracePhase::kOutsideLayers && inner != nullptr) continue;
    const bool named_over_unnamed = inner != nullptr && inner->phase == TracePhase::kOutsideLayers &&
                                    r.phase != TracePhase::kOutsideLayers;
    if (inner == nullptr || named_over_unnamed || r.end - r.start < inner->end - inner->start) inner = &r;
  }
  return inner;
}

struct Event {
  std::string name, cat;
  double ts = 0, dur = 0;
  std::int64_t pid = 0;
  const nlohmann::json* args = nullptr;
};

std::int64_t id_of(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number()) {
    const double v = value.get<double>();
    if (std::isfinite(v) && std::fabs(v) < 9e18) return static_cast<std::int64_t>(v);  // beyond: not a cast but a name
  }
  return std::hash<std::string>{}(value.is_string() ? value.get<std::string>() : value.dump()) & 0x7fffffff;
}

std::vector<Event> complete_events(const nlohmann::json& list, const std::string& source) {
  std::vector<Event> events;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& e = list[i];
    const std::string where = "/traceEvents/" + std::to_string(i);
    if (!e.is_object()) throw InputError(source, where, "a trace event is a JSON object");
    const auto ph = e.find("ph");
    if (ph == e.end() || !ph->is_string() || *ph != "X") continue;
    Event ev;
    const auto name = e.find("name");
    if (name == e.end() || !name->is_string()) throw InputError(source, where + "/name", "a complete event needs a name");
    ev.name = name->get<std::string>();
    if (const auto cat = e.find("cat"); cat != e.end() && cat->is_string()) ev.cat = cat->get<std::string>();
    const auto ts = e.find("ts");
    const auto dur = e.find("dur");
    if (ts == e.end() || !ts->is_number()) throw InputError(source, where + "/ts", "a complete event needs a start time");
    if (dur == e.end() || !dur->is_number()) throw InputError(source, where + "/dur", "a complete event needs a duration");
    ev.ts = ts->get<double>();
    ev.dur = dur->get<double>();
    if (!std::isfinite(ev.ts) || !std::isfinite(ev.dur) || ev.dur < 0) {
      throw InputError(source, where + "/dur", "a duration is a finite number of microseconds, not negative");
    }
    if (const auto pid = e.find("pid"); pid != e.end()) ev.pid = id_of(*pid);
    if (const auto args = e.find("args"); args != e.end() && args->is_object()) ev.args = &*args;
    events.push_back(std::move(ev));
  }
  return events;
}

void add(TraceSummary& s, std::map<std::string, double>& other, const std::string& name, TracePhase phase, double us) {
  const KernelClass c = classify_kernel(name);
  auto& slot = s.time[static_cast<std::size_t>(c)][static_cast<std::size_t>(phase)];
  slot.us += us;
  ++slot.kernels;
  if (c == KernelClass::kOther) other[name] += us;
}

void keep_longest_others(TraceSummary& s, const std::map<std::string, double>& other) {
  for (const auto& [name, us] : other) s.unclassified.push_back({name, us});
  std::stable_sort(s.unclassified.begin(), s.unclassified.end(), [](const auto& a, const auto& b) { return a.us > b.us; });
  if (s.unclassified.size() > 10) s.unclassified.resize(10);
}

std::optional<std::int64_t> correlation_of(const Event& e) {
  if (e.args == nullptr) return std::nullopt;
  const auto c = e.args->find("correlation");
  if (c == e.args->end() || !c->is_number()) return std::nullopt;
  return id_of(*c);
}

void summarize_kineto(const std::vector<Event>& events, TraceSummary& s) {
  std::vector<Range> gpu_ranges, cpu_ranges;
  std::unordered_map<std::int64_t, double> launch_ts;
  LayerRanges layers;
  std::int64_t steps = 0;
  for (const auto& e : events) {
    if (e.cat == "gpu_user_annotation") {
      gpu_ranges.push_back({e.ts, e.ts + e.dur, phase_of_range(e.name, layers), e.pid});
    } else if (e.cat == "user_annotation") {
      if (starts_with(e.name, "ProfilerStep#")) {
        ++steps;
      } else {
        cpu_ranges.push_back({e.ts, e.ts + e.dur, phase_of_range(e.name, layers), -1});
      }
    } else if (e.cat == "cuda_runtime" || e.cat == "cuda_driver") {
      if (const auto c = correlation_of(e)) launch_ts.emplace(*c, e.ts);
    }
  }
  std::set<std::int64_t> devices;
  std::map<std::string, double> other;
  for (const auto& e : events) {
    if (e.cat != "kernel") continue;
    devices.insert(e.pid);
    TracePhase phase = TracePhase::kOutsideLayers;
    if (const Range* r = holding(gpu_ranges, e.ts, e.pid)) {
      phase = r->phase;
    } else if (const auto c = correlation_of(e)) {
      if (const auto launch = launch_ts.find(*c); launch != launch_ts.end()) {
        if (const Range* cpu = holding(cpu_ranges, launch->second, -1)) phase = cpu->phase;
      }
    }
    add(s, other, e.name, phase, e.dur);
  }
  s.devices = static_cast<std::int64_t>(devices.size());
  s.steps = std::max<std::int64_t>(steps, 1);
  s.layers = layers.count();
  keep_longest_others(s, other);
}

void summarize_ctwin(const std::vector<Event>& events, TraceSummary& s) {
  std::set<std::int64_t> devices;
  std::map<std::string, double> other;
  for (const auto& e : events) {
    devices.insert(e.pid);
    TracePhase phase = TracePhase::kOutsideLayers;
    if (!twin_op_outside_layers(e.name) && e.args != nullptr) {
      const auto pass = e.args->find("pass");
      if (pass != e.args->end() && pass->is_string()) {
        phase = *pass == "forward" ? TracePhase::kForward : TracePhase::kBackward;
      }
    }
    add(s, other, e.name, phase, e.dur);
  }
  s.devices = static_cast<std::int64_t>(devices.size());
  keep_longest_others(s, other);
}

// One CSV line into fields; a quoted field may hold commas and doubled quotes.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        fields.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else if (ch != '\r') {
      fields.back() += ch;
    }
  }
  return fields;
}

TraceSummary summarize_nsys_csv(std::istream& in, const std::string& source) {
  TraceSummary s;
  s.source = source;
  s.format = TraceFormat::kNsysCsv;
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line) && header.empty()) {
    auto fields = csv_fields(line);
    if (std::find(fields.begin(), fields.end(), "Name") != fields.end()) header = std::move(fields);
  }
  const auto column = [&](std::string_view title) -> std::size_t {
    const auto it = std::find(header.begin(), header.end(), title);
    if (it == header.end()) {
      throw InputError(source, "", "not a trace: a Chrome trace JSON, or nsys stats --report cuda_gpu_kern_sum CSV with "
                                   "'Total Time (ns)', 'Instances' and 'Name' columns (no '" + std::string(title) + "')");
    }
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t total = column("Total Time (ns)"), instances = column("Instances"), name = column("Name");
  std::map<std::string, double> other;
  std::int64_t row = 1;
  do {
    ++row;
    if (line.empty()) continue;
    const auto fields = csv_fields(line);
    const std::string where = "line " + std::to_string(row);
    if (fields.size() <= std::max({total, instances, name})) throw InputError(source, where, "a row has fewer columns than the header");
    double ns = 0, count = 0;
    try {
      ns = std::stod(fields[total]);
      count = std::stod(fields[instances]);
    } catch (const std::exception&) {
      throw InputError(source, where, "'Total Time (ns)' and 'Instances' are numbers");
    }
    if (!std::isfinite(ns) || ns < 0 || !std::isfinite(count) || count < 0) {
      throw InputError(source, where, "'Total Time (ns)' and 'Instances' are finite and not negative");
    }
    // A trace of a step launches far fewer; beyond this the count is a typo, and summed as an
    // integer it could overflow.
    if (count > kMaxKernelInstances) {
      throw InputError(source, where, "'Instances' is at most 1e12 kernels a row");
    }
    const KernelClass c = classify_kernel(fields[name]);
    auto& slot = s.time[static_cast<std::size_t>(c)][static_cast<std::size_t>(TracePhase::kOutsideLayers)];
    if (static_cast<double>(slot.kernels) + count > 1e3 * kMaxKernelInstances) {
      throw InputError(source, where, "more than 1e15 kernels of one class in all");
    }
    slot.us += ns / 1e3;
    slot.kernels += static_cast<std::int64_t>(count);
    if (c == KernelClass::kOther) other[fields[name]] += ns / 1e3;
  } while (std::getline(in, line));
  keep_longest_others(s, other);
  return s;
}

std::string model_of_meta(const std::filesystem::path& trace) {
  std::filesystem::path meta = trace;
  meta.replace_extension(".meta.json");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(meta, ec)) return "";
  const nlohmann::json document = load_json_file(meta);
  const auto model = document.find("model");
  return model != document.end() && model->is_string() ? model->get<std::string>() : "";
}

}  // namespace

const char* trace_phase_name(TracePhase p) {
  switch (p) {
    case TracePhase::kForward: return "forward";
    case TracePhase::kBackward: return "backward";
    case TracePhase::kOutsideLayers: return "outside_layers";
  }
  return "outside_layers";
}

const char* trace_format_name(TraceFormat f) {
  switch (f) {
    case TraceFormat::kCtwin: return "ctwin";
    case TraceFormat::kKineto: return "kineto";
    case TraceFormat::kNsysCsv: return "nsys_csv";
  }
  return "ctwin";
}

double TraceSummary::total_us() const {
  double sum = 0;
  for (const auto& phases : time) {
    for (const auto& slot : phases) sum += slot.us;
  }
  return sum;
}

TraceSummary summarize_chrome_trace(const nlohmann::json& trace, const std::string& source) {
  const nlohmann::json* list = &trace;
  if (trace.is_object()) {
    const auto events = trace.find("traceEvents");
    if (events == trace.end()) throw InputError(source, "/traceEvents", "not a Chrome trace: no traceEvents array");
    list = &*events;
  }
  if (!list->is_array()) throw InputError(source, "/traceEvents", "not a Chrome trace: traceEvents is an array of events");
  const std::vector<Event> events = complete_events(*list, source);
  TraceSummary s;
  s.source = source;
  const bool kineto = std::any_of(events.begin(), events.end(), [](const Event& e) { return e.cat == "kernel"; });
  if (kineto) {
    s.format = TraceFormat::kKineto;
    summarize_kineto(events, s);
  } else {
    s.format = TraceFormat::kCtwin;
    const bool uncategorised = std::all_of(events.begin(), events.end(), [](const Event& e) { return e.cat.empty(); });
    if (!uncategorised) {
      throw InputError(source, "/traceEvents", "no GPU kernels: a PyTorch profiler trace needs ProfilerActivity.CUDA "
                                               "(events of category 'kernel')");
    }
    summarize_ctwin(events, s);
  }
  if (s.devices == 0 || s.total_us() <= 0) throw InputError(source, "/traceEvents", "no GPU kernel time in the trace");
  return s;
}

TraceSummary read_profiler_trace(const std::filesystem::path& path) {
  const std::string source = path.string();
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) throw InputError(source, "", "cannot read the trace file");
  char first = 0;
  while (in.get(first) && std::isspace(static_cast<unsigned char>(first))) {
  }
  if (!in) throw InputError(source, "", "the trace file is empty");
  in.unget();
  TraceSummary summary;
  if (first == '{' || first == '[') {
    summary = summarize_chrome_trace(load_json_file(path), source);
    if (summary.format == TraceFormat::kKineto) summary.model = model_of_meta(path);
  } else {
    summary = summarize_nsys_csv(in, source);
    if (summary.total_us() <= 0) throw InputError(source, "", "no GPU kernel time in the trace");
  }
  return summary;
}

}  // namespace ctwin::calibration
