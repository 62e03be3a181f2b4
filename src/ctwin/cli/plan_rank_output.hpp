#pragma once
// `ctwin plan SCENARIO --rank-of tp=4,pp=8,...`: one split's rank (plan/plan_rank.hpp) printed as
// a table, JSON or CSV.

#include <string>

#include "ctwin/api/public_plan.hpp"
#include "ctwin/cli/output.hpp"

namespace ctwin::cli {

/// "tp=4,pp=8,vpp=1" as the key's items; an empty item is an InputError naming --rank-of.
[[nodiscard]] std::vector<std::string> parse_rank_key(const std::string& text);

/// "+0.071 s bubble, -0.145 s exposed_tp": what an entry loses or gains against the plan's first.
[[nodiscard]] std::string why_text(const api::PlanEntry& entry);

void print_split_rank(const api::SplitRank& rank, Format format);

}  // namespace ctwin::cli
