#pragma once
// The result objects ctwin._core returns: the library's report document (api/report_json.hpp,
// the document the CLI prints with --format json) held natively behind Python, as boost-histogram
// keeps its histograms. A result's fields are written once, by the library's JSON writer, so the
// objects read their headline figures from that document instead of keeping a second field list.

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace ctwin::python {

/// One command's report document; every command prints it indented by 2 (kCliIndent).
struct NativeReport {
  NativeReport() = default;
  explicit NativeReport(nlohmann::json doc) : document(std::move(doc)) {}
  nlohmann::json document;
};

inline constexpr int kCliIndent = 2;

// One C++ type per command, so that each is its own Python class with its own headline properties.
struct StepReport : NativeReport { using NativeReport::NativeReport; };
struct ScalingReport : NativeReport { using NativeReport::NativeReport; };
struct PlanReport : NativeReport { using NativeReport::NativeReport; };
struct SweepReport : NativeReport { using NativeReport::NativeReport; };
struct GoodputReport : NativeReport { using NativeReport::NativeReport; };
struct SizeReport : NativeReport { using NativeReport::NativeReport; };
struct AcceptReport : NativeReport { using NativeReport::NativeReport; };
struct CollectiveReport : NativeReport { using NativeReport::NativeReport; };
struct ExplainReport : NativeReport { using NativeReport::NativeReport; };
struct ClusterReport : NativeReport { using NativeReport::NativeReport; };

}  // namespace ctwin::python
