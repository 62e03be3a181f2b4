#include "ctwin/plan/plan_space.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

using workload::ParallelConfig;
using workload::PipelineSchedule;
using workload::Recompute;

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    out.push_back(d);
    if (d != n / d) out.push_back(n / d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::int64_t fixed_integer(const Override& fix, std::int64_t low, std::int64_t high) {
  if (!fix.value.is_number_integer() || fix.value.get<std::int64_t>() < low || fix.value.get<std::int64_t>() > high) {
    throw InputError("--fix", "", fix.path + "=" + fix.value.dump() + ": expected an integer in [" +
                                      std::to_string(low) + ", " + std::to_string(high) + "]");
  }
  return fix.value.get<std::int64_t>();
}

bool fixed_boolean(const Override& fix) {
  if (!fix.value.is_boolean()) throw InputError("--fix", "", fix.path + "=" + fix.value.dump() + ": expected true or false");
  return fix.value.get<bool>();
}

std::string fixed_text(const Override& fix) {
  return fix.value.is_string() ? fix.value.get<std::string>() : fix.value.dump();
}

// The split every level's checks start from: the training settings, sequence parallelism with tp.
ParallelConfig base_split(const ParallelConfig& training, std::int64_t tp, std::int64_t pp, std::int64_t cp,
                          std::int64_t ep, bool accounting, std::optional<std::int64_t> dp) {
  ParallelConfig split = training;
  split.tp = tp;
  split.pp = pp;
  split.cp = cp;
  split.ep = ep;
  split.expert_tp = 1;
  split.dp = dp;
  split.sequence_parallel = tp > 1;
  split.embedding_in_split = accounting;
  split.loss_in_split = accounting;
  split.first_stage_layers.reset();
  split.last_stage_layers.reset();
  split.pipeline_layout.clear();
  split.vpp = 1;
  split.schedule = PipelineSchedule::kOneFOneB;
  split.micro_batch = 1;
  split.recompute = Recompute::kNone;
  split.zero = 0;
  split.distributed_optimizer = false;
  return split;
}

// Rules decided by the schedule alone (the pipeline's shape), not by the micro-batch or optimizer.
bool schedule_rule(const std::string& rule) {
  return rule == "parallel.schedule" || rule == "parallel.vpp" || rule == "parallel.pp" ||
         rule == "parallel.account_for_embedding_in_pipeline_split" || rule == "training.global_batch";
}

// A candidate's split apart from ep and the optimizer: what moe.ep_domain and moe.zero compare.
using SplitShape = std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, int, std::int64_t, std::int64_t, int>;

SplitShape shape_of(const ParallelConfig& s) {
  return {s.tp, s.pp, s.cp, s.embedding_in_split, static_cast<int>(s.schedule), s.vpp, s.micro_batch,
          static_cast<int>(s.recompute)};
}

bool axis_has_distributed_optimizer(const PlanAxes& axes) {
  return std::any_of(axes.optimizer.begin(), axes.optimizer.end(),
                     [](const OptimizerChoice& o) { return o.distributed_optimizer; });
}

// The MoE rules of the file comment, on the survivors of every other rule: removed candidates
// are counted against their rule and the rest renumbered in enumeration order.
void apply_moe_rules(PlanSpace& space, const SpaceInputs& in, const PlanAxes& axes, std::int64_t domain) {
  const bool ep_rule = axes.ep.size() > 1;
  const bool zero_rule = axis_has_distributed_optimizer(axes) &&
                         std::any_of(axes.optimizer.begin(), axes.optimizer.end(),
                                     [](const OptimizerChoice& o) { return o.zero >= 2; });
  if (!in.model.has_moe || (!ep_rule && !zero_rule)) return;
  const auto within = [domain](const ParallelConfig& s) { return s.ep * s.expert_tp * s.tp <= domain; };
  // The smallest ep within the domain that fits each (shape, optimizer), and the shapes (with ep)
  // whose distributed-optimizer split fits.
  std::map<std::tuple<SplitShape, int, bool>, std::int64_t> fitting_within;
  std::set<std::tuple<SplitShape, std::int64_t>> fitting_zero1;
  for (const auto& c : space.survivors) {
    const ParallelConfig& s = c.split;
    if (within(s)) fitting_within.emplace(std::tuple{shape_of(s), s.zero, s.distributed_optimizer}, s.ep);
    if (s.distributed_optimizer) fitting_zero1.emplace(shape_of(s), s.ep);
  }
  std::vector<PlanCandidate> kept;
  for (auto& c : space.survivors) {
    const ParallelConfig& s = c.split;
    if (ep_rule && !within(s)) {
      const auto it = fitting_within.find({shape_of(s), s.zero, s.distributed_optimizer});
      if (it != fitting_within.end()) {
        space.rules.add("moe.ep_domain", 1,
                        "ep " + std::to_string(s.ep) + " x tp " + std::to_string(s.tp) + " spans more than the " +
                            std::to_string(domain) + " GPUs of one NVLink domain, and ep " +
                            std::to_string(it->second) + " within it fits the same split");
        continue;
      }
    }
    if (zero_rule && s.zero >= 2 && fitting_zero1.contains({shape_of(s), s.ep})) {
      space.rules.add("moe.zero", 1,
                      "ZeRO-" + std::to_string(s.zero) + " where the distributed optimizer fits the same split (tp " +
                          std::to_string(s.tp) + ", pp " + std::to_string(s.pp) + ", ep " + std::to_string(s.ep) + ")");
      continue;
    }
    c.index = static_cast<std::int64_t>(kept.size());
    kept.push_back(std::move(c));
  }
  space.survivors = std::move(kept);
}

}  // namespace

PlanAxes default_axes(const workload::ModelSpec& model, std::int64_t gpus) {
  PlanAxes axes;
  axes.tp = divisors(gpus);
  axes.pp = divisors(gpus);
  for (const std::int64_t cp : {1, 2, 4, 8, 16}) axes.cp.push_back(cp);
  axes.ep = model.has_moe ? divisors(model.moe.experts) : std::vector<std::int64_t>{1};
  axes.pipeline_accounting = {false, true};
  axes.schedule = {PipelineSchedule::kOneFOneB, PipelineSchedule::kInterleaved};
  for (std::int64_t v = 2; v <= std::min<std::int64_t>(32, model.layers); ++v) axes.vpp.push_back(v);
  axes.micro_batch = {1, 2, 4, 8};
  axes.recompute = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  axes.optimizer = {{0, false}, {1, true}, {2, false}, {3, false}};
  return axes;
}

bool apply_fix(PlanAxes& axes, const Override& fix) {
  constexpr std::int64_t kMax = std::int64_t{1} << 24;
  const std::string& p = fix.path;
  if (p == "parallel.tp") axes.tp = {fixed_integer(fix, 1, kMax)};
  else if (p == "parallel.pp") axes.pp = {fixed_integer(fix, 1, kMax)};
  else if (p == "parallel.cp") axes.cp = {fixed_integer(fix, 1, kMax)};
  else if (p == "parallel.ep") axes.ep = {fixed_integer(fix, 1, kMax)};
  else if (p == "parallel.dp") axes.dp = fixed_integer(fix, 1, kMax);
  else if (p == "training.micro_batch") axes.micro_batch = {fixed_integer(fix, 1, std::int64_t{1} << 30)};
  else if (p == "parallel.account_for_embedding_in_pipeline_split" || p == "parallel.account_for_loss_in_pipeline_split") {
    axes.pipeline_accounting = {fixed_boolean(fix)};
  } else if (p == "parallel.vpp") {
    const std::int64_t vpp = fixed_integer(fix, 1, kMax);
    if (vpp == 1) {
      axes.schedule = {PipelineSchedule::kOneFOneB};
    } else {
      axes.schedule = {PipelineSchedule::kInterleaved};
      axes.vpp = {vpp};
    }
  } else if (p == "parallel.schedule") {
    const auto schedule = workload::schedule_from_name(fixed_text(fix));
    if (!schedule || *schedule == PipelineSchedule::kGpipe) {
      throw InputError("--fix", "", p + "=" + fixed_text(fix) + ": expected 1f1b or interleaved");
    }
    axes.schedule = {*schedule};
  } else if (p == "parallel.recompute") {
    const auto recompute = workload::recompute_from_name(fixed_text(fix));
    if (!recompute) throw InputError("--fix", "", p + "=" + fixed_text(fix) + ": expected none, selective or full");
    axes.recompute = {*recompute};
  } else if (p == "parallel.zero") {
    const int zero = static_cast<int>(fixed_integer(fix, 0, 3));
    std::erase_if(axes.optimizer, [zero](const OptimizerChoice& o) { return o.zero != zero && !(zero == 1 && o.distributed_optimizer); });
  } else if (p == "parallel.distributed_optimizer") {
    const bool on = fixed_boolean(fix);
    std::erase_if(axes.optimizer, [on](const OptimizerChoice& o) { return o.distributed_optimizer != on; });
  } else if (p == "parallel.expert_tp" || p == "parallel.sequence_parallel" || p == "parallel.first_stage_layers" ||
             p == "parallel.last_stage_layers" || p == "parallel.pipeline_layout") {
    throw InputError("--fix", "", p + ": the planner does not search this field (see docs/plan.md: expert_tp 1, "
                                      "sequence parallelism with tp > 1, even or embedding/loss-accounted stages)");
  } else {
    return false;
  }
  return true;
}

PlanSpace enumerate_plan_space(const SpaceInputs& in, const PlanAxes& axes) {
  PlanSpace space;
  const std::int64_t domain = nvlink_domain(in.cluster);
  const auto count = [](const auto& v) { return static_cast<std::int64_t>(v.size()); };
  const std::int64_t per_schedule = count(axes.micro_batch) * count(axes.recompute) * count(axes.optimizer);
  std::int64_t schedules = 0;  // (schedule, vpp) pairs
  for (const auto s : axes.schedule) schedules += s == PipelineSchedule::kInterleaved ? count(axes.vpp) : 1;
  const std::int64_t per_outer = schedules * per_schedule;

  for (const std::int64_t tp : axes.tp) {
    for (const std::int64_t pp : axes.pp) {
      for (const std::int64_t cp : axes.cp) {
        for (const std::int64_t ep : axes.ep) {
          for (const bool accounting : axes.pipeline_accounting) {
            // Accounting for the embedding and loss only means something across stages.
            if (accounting && pp == 1 && axes.pipeline_accounting.size() > 1) continue;
            space.enumerated += per_outer;
            const ParallelConfig outer = base_split(in.training, tp, pp, cp, ep, accounting, axes.dp);
            if (tp > domain) {
              space.rules.add("nvlink", per_outer,
                              "tp " + std::to_string(tp) + " spans more than the " + std::to_string(domain) +
                                  " GPUs of one NVLink domain");
              continue;
            }
            if (const RuleVerdict v = check_split(in.model, outer, in.gpus); !v.passed()) {
              space.rules.add(v.rule, per_outer, v.message);
              continue;
            }
            for (const auto schedule : axes.schedule) {
              const bool interleaved = schedule == PipelineSchedule::kInterleaved;
              const std::vector<std::int64_t> one{1};
              for (const std::int64_t vpp : interleaved ? axes.vpp : one) {
                ParallelConfig shaped = outer;
                shaped.schedule = schedule;
                shaped.vpp = vpp;
                if (const RuleVerdict v = check_split(in.model, shaped, in.gpus); !v.passed() && schedule_rule(v.rule)) {
                  space.rules.add(v.rule, per_schedule, v.message);
                  continue;
                }
                for (const std::int64_t micro : axes.micro_batch) {
                  for (const auto recompute : axes.recompute) {
                    for (const auto& optimizer : axes.optimizer) {
                      ParallelConfig split = shaped;
                      split.micro_batch = micro;
                      split.recompute = recompute;
                      split.zero = optimizer.zero;
                      split.distributed_optimizer = optimizer.distributed_optimizer;
                      RuleVerdict v = check_split(in.model, split, in.gpus);
                      if (v.passed()) v = check_memory(in.model, split, in.gpus, in.gpu, in.memory_margin);
                      if (!v.passed()) {
                        space.rules.add(v.rule, 1, v.message);
                        continue;
                      }
                      space.survivors.push_back({static_cast<std::int64_t>(space.survivors.size()), split});
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  apply_moe_rules(space, in, axes, domain);
  return space;
}

}  // namespace ctwin::api
