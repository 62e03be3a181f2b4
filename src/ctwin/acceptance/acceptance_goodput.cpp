#include "ctwin/acceptance/acceptance_goodput.hpp"

#include <cstdio>

#include "ctwin/analysis/goodput_study.hpp"
#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::api {

AcceptanceGoodput evaluate_acceptance_goodput(const GoodputKey& key, const std::string& cluster, std::int64_t gpus,
                                              EvalContext& context) {
  // The step time only rounds checkpoint intervals and counts tokens here; MTBF, MTTR and
  // availability come from the failure model. The analytical network gives it in seconds where
  // the shared flow fabric of a 10k-GPU build takes minutes.
  // The job spans the whole build; its global batch becomes one micro-batch per GPU, which every
  // data-parallel width of the build divides (the scenario's own batch was set for its own size).
  const Scenario loaded = Scenario::load(key.scenario);
  const nlohmann::json* micro = loaded.document().contains("training") ? &loaded.document()["training"] : nullptr;
  const std::int64_t micro_batch =
      micro != nullptr && micro->contains("micro_batch") && (*micro)["micro_batch"].is_number_integer()
          ? (*micro)["micro_batch"].get<std::int64_t>()
          : 1;
  const Scenario scenario = loaded.with("cluster", cluster)
                                .with("gpus", gpus)
                                .with("network", "analytical")
                                .with("training.global_batch", gpus * micro_batch);
  const StepResult step = evaluate(scenario, context);
  const fabric::Fabric built(step.scenario.cluster, static_cast<int>(step.scenario.gpus));
  const fabric::FabricSummary summary = fabric::summarize(built);
  const analysis::ReliabilityModel model =
      analysis::load_reliability_model(resolve_data_path("models/reliability/gpu-cluster.json"));
  const auto tiers = analysis::load_storage_tiers(resolve_data_path("models/reliability/storage.json"));
  const analysis::StorageTier* tier = nullptr;
  for (const auto& t : tiers) {
    if (t.name == "pfs") tier = &t;
  }
  CTWIN_ASSERT(tier != nullptr, "the bundled storage tiers name pfs");
  analysis::GoodputInputs in;
  in.days = key.days;
  in.spares.hot = analysis::parse_spare_count(key.spares, key.scenario + ": spares", summary.nodes, summary.scalable_units);
  in.step_time_s = step.step.report.step_time_s;
  in.tokens_per_s = step.step.report.tokens_per_s;
  const analysis::GoodputStudy study = analysis::run_goodput_study(step.scenario, summary, model, *tier, in);
  AcceptanceGoodput out;
  out.mtbf_h = study.result.mtbf_s / 3600;
  out.mttr_h = study.result.mttr_s / 3600;
  out.availability = study.result.availability;
  char text[160];
  std::snprintf(text, sizeof text, "%.0f days, %lld hot spares, %d runs, ETTR %.3f", key.days,
                static_cast<long long>(in.spares.hot), study.result.runs, study.result.ettr.mean);
  out.detail = text;
  return out;
}

}  // namespace ctwin::api
