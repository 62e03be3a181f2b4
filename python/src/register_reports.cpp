// ctwin._core's result classes (report_object.hpp): to_dict() is the CLI's --format json as a
// dict, to_json() its bytes, and each class has read-only properties for its headline figures.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {
namespace {

py::object report_value_to_python(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::boolean: return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: {
      // The writer prints a non-finite number as null, so json.loads of the CLI's text reads None.
      const double x = value.get<double>();
      return std::isfinite(x) ? py::object(py::float_(x)) : py::object(py::none());
    }
    case nlohmann::json::value_t::string: {
      // Bytes that are not UTF-8 (a file name) become U+FFFD, as json_text writes them.
      const auto& text = value.get_ref<const std::string&>();
      return py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
    }
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& item : value) out.append(report_value_to_python(item));
      return out;
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [key, item] : value.items()) out[py::str(key)] = report_value_to_python(item);
      return out;
    }
    default: return py::none();  // null (and binary, which no report holds)
  }
}

/// The value at `pointer` in the report, or None where the report has no such field.
py::object report_field(const NativeReport& report, const std::string& pointer) {
  const nlohmann::json::json_pointer at(pointer);
  if (!report.document.contains(at)) return py::none();
  return report_value_to_python(report.document.at(at));
}

// name, JSON pointer, docstring.
struct Headline {
  const char* name;
  const char* pointer;
  const char* doc;
};

template <typename Report>
void bind_report(py::module_& m, const char* name, const char* doc, const std::vector<Headline>& headlines) {
  py::class_<Report, NativeReport> cls(m, name, doc);
  cls.def(py::init([](const std::string& text) { return Report(parse_json_text(text, "report")); }), py::arg("text"),
          "A report read back from its JSON text (to_json()).");
  for (const Headline& h : headlines) {
    const std::string pointer = h.pointer;
    cls.def_property_readonly(h.name, [pointer](const Report& r) { return report_field(r, pointer); }, h.doc);
  }
  cls.def_property_readonly_static("headlines", [headlines](py::object) {
    py::tuple out(headlines.size());
    for (std::size_t i = 0; i < headlines.size(); ++i) out[i] = py::str(headlines[i].name);
    return out;
  });
  cls.def("__repr__", [name, headlines](const py::object& self) {
    std::string text = std::string(name) + "(";
    for (std::size_t i = 0; i < headlines.size(); ++i) {
      if (i) text += ", ";
      text += std::string(headlines[i].name) + "=" + py::repr(self.attr(headlines[i].name)).cast<std::string>();
    }
    return text + ")";
  });
  // Pickled as its text, so that a report crosses to and from Dask workers.
  cls.def(py::pickle([](const Report& r) { return json_text(r.document); },
                     [](const std::string& text) { return Report(parse_json_text(text, "report")); }));
}

}  // namespace

void register_reports(py::module_& m) {
  py::class_<NativeReport> base(m, "Report", "A ctwin report held natively: to_dict() and to_json() are the CLI's --format json.");
  base.def("to_dict", [](const NativeReport& r) { return report_value_to_python(r.document); },
           "The report as the dict json.loads gives of the CLI's --format json text.");
  base.def("to_json", [](const NativeReport& r, std::optional<int> indent) { return json_text(r.document, indent.value_or(kCliIndent)); },
           py::arg("indent") = py::none(), "The report's JSON text, byte for byte the CLI's (without its newline) by default.");
  base.def("__getitem__", [](const NativeReport& r, const std::string& key) {
    if (!r.document.is_object() || !r.document.contains(key)) throw py::key_error(key);
    return report_value_to_python(r.document.at(key));
  });
  base.def("__contains__", [](const NativeReport& r, const std::string& key) {
    return r.document.is_object() && r.document.contains(key);
  });
  base.def("keys", [](const NativeReport& r) {
    py::list out;
    if (r.document.is_object()) for (const auto& item : r.document.items()) out.append(py::str(item.key()));
    return out;
  });

  bind_report<StepReport>(m, "StepReport", "One training step (ctwin run).",
                          {{"step_time_s", "/step_time_s", "The step's time, s."},
                           {"tokens_per_s", "/tokens_per_s", "Tokens per second of the whole job."},
                           {"mfu", "/mfu", "Model FLOPs utilisation, 0-1."},
                           {"model_tflops_per_gpu", "/model_tflops_per_gpu", "Model TFLOP/s per GPU."},
                           {"comm_ratio", "/comm_ratio", "Exposed communication / step time."},
                           {"fits_memory", "/fits_memory", "Whether every stage fits its GPUs' memory."},
                           {"gpus", "/gpus", "GPUs of the job."},
                           {"network", "/network", "analytical or flow."}});
  bind_report<ScalingReport>(m, "ScalingReport", "A scaling study (ctwin scale).",
                             {{"model", "/model", "The model's name."},
                              {"scaling", "/scaling", "strong or weak."},
                              {"batch", "/batch", "How each size's global batch was chosen."}});
  bind_report<PlanReport>(m, "PlanReport", "A plan (ctwin plan).",
                          {{"model", "/model", "The model's name."},
                           {"gpus", "/gpus", "GPUs planned for."},
                           {"objective", "/objective", "throughput or mfu."},
                           {"enumerated", "/enumerated", "Candidate splits enumerated."},
                           {"survivors", "/survivors", "Candidates valid and fitting memory."},
                           {"best_split", "/results/0/split", "Rank 1's split."}});
  bind_report<SweepReport>(m, "SweepReport", "A grid sweep (ctwin sweep).", {{"model", "/model", "The model's name."}});
  bind_report<GoodputReport>(m, "GoodputReport", "A goodput study (ctwin goodput).",
                             {{"ettr", "/ettr/mean", "Mean effective training time ratio over the runs, 0-1."},
                              {"goodput", "/goodput/mean", "Mean goodput over the runs, 0-1."},
                              {"interval_s", "/interval_s", "The checkpoint interval simulated, s."},
                              {"young_daly_interval_s", "/young_daly_interval_s", "Young/Daly's interval, s."},
                              {"step_time_s", "/step_time_s", "The step time the study used, s."}});
  bind_report<SizeReport>(m, "SizeReport", "Build options compared (ctwin size).",
                          {{"cluster", "/cluster", "The topology."}, {"gpus", "/gpus", "GPUs of the build."}});
  bind_report<AcceptReport>(m, "AcceptReport", "An acceptance plan's expectations or check (ctwin accept).",
                            {{"cluster", "/cluster", "The topology."}, {"gpus", "/gpus", "GPUs of the build."}});
  bind_report<CollectiveReport>(m, "CollectiveReport", "A collective's time and bandwidth by size (ctwin collective).",
                                {{"op", "/op", "The collective."},
                                 {"gpus", "/gpus", "GPUs taking part."},
                                 {"channels", "/channels", "NCCL channels."}});
  bind_report<ExplainReport>(m, "ExplainReport", "The waterfall of a chain of scenario changes (ctwin explain).",
                             {{"total_gain", "/total_gain", "Throughput of the last link over the first."}});
  bind_report<ClusterReport>(m, "ClusterReport", "Several jobs on one build (ctwin cluster).",
                             {{"cluster", "/cluster", "The topology."},
                              {"build_gpus", "/build_gpus", "GPUs of the build."},
                              {"busy_nodes", "/busy_nodes", "Nodes the jobs occupy."},
                              {"steps", "/steps", "Steps in the window."},
                              {"window_end_s", "/window_end_s", "End of the window, s."}});
}

}  // namespace ctwin::python
