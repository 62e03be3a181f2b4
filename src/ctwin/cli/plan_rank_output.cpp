#include "ctwin/cli/plan_rank_output.hpp"

#include <iostream>

#include "ctwin/api/error_band.hpp"
#include "ctwin/cli/error_band_output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {
namespace {

std::string split_text(const api::PlanEntry& e) {
  const auto& s = e.split;
  return "tp" + std::to_string(s.tp) + " pp" + std::to_string(s.pp) + " vpp" + std::to_string(s.vpp) + " cp" +
         std::to_string(s.cp) + " ep" + std::to_string(s.ep) + " dp" + std::to_string(e.dp) + " mb" +
         std::to_string(s.micro_batch) + " " + workload::recompute_name(s.recompute) + " " +
         (s.distributed_optimizer ? std::string("distopt") : "zero" + std::to_string(s.zero)) +
         (s.pp > 1 && s.embedding_in_split ? " accounted" : "");
}

}  // namespace

std::string why_text(const api::PlanEntry& e) {
  std::string text;
  for (const auto& d : e.why) {
    if (!text.empty()) text += ", ";
    if (d.delta_s >= 0) text += '+';
    text += fixed(d.delta_s, 3) + " s " + d.part;
  }
  return text;
}

std::vector<std::string> parse_rank_key(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item.empty()) throw InputError("--rank-of", "", "'" + text + "': expected name=value items separated by commas");
    items.push_back(item);
    start = comma + 1;
  }
  return items;
}

void print_split_rank(const api::SplitRank& r, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::split_rank_json(r), 2) << '\n';
    return;
  }
  const double named_tps = r.named && r.rank > 0 ? r.named->analytical.tokens_per_s : 0;
  const double best_tps = r.best ? r.best->analytical.tokens_per_s : 0;
  if (format == Format::kTable) {
    std::cout << r.model << " on " << r.gpus << " x " << r.gpu << " (" << r.cluster << "), global batch "
              << r.global_batch << ", seq " << r.seq_len << ", objective " << api::plan_objective_name(r.objective)
              << ", analytical network\n"
              << r.survivors << " candidates of " << r.enumerated << " pass the plan's rules, " << r.valid
              << " valid; " << r.replayed << " replayed, " << r.bounded << " bounded\n\n";
  }
  Table table({"split", "rank", "of", "step_s", "tokens_per_s", "tokens_per_s p10-p90", "mfu_%", "distinguishable",
               "mem_GiB", "best_speedup_%", "why (vs rank 1) / not valid"});
  // The rank replays on the analytical network only, so its rows take that network's band.
  const analysis::ErrorBands bands = api::load_bundled_error_bands();
  analysis::ErrorBandKey band_key = r.error_band;
  band_key.network = "analytical";
  const analysis::ErrorBand band = analysis::band_for(bands, band_key);
  const auto row = [&](const std::string& label, const api::PlanEntry* e, const std::string& rank,
                       const std::string& speedup, const std::string& note) {
    const api::PlanScore* s = e != nullptr && e->invalid.empty() ? &e->analytical : nullptr;
    std::string distinct;
    if (s != nullptr) {
      distinct = rank == "1" || !r.best ? "-"
                                        : (api::distinguishable_from_best(*e, *r.best, r.objective, bands, r.error_band) ? "yes" : "no");
    }
    table.add_row({label, rank, std::to_string(r.valid), s ? fixed(s->step_time_s, 4) : "",
                   s ? fixed(s->tokens_per_s, 0) : "",
                   s ? interval_text(analysis::throughput_interval(s->tokens_per_s, *band.from), 0) : "",
                   s ? fixed(100 * s->mfu, 1) : "", distinct, s ? fixed(s->memory_gib_per_gpu, 1) : "", speedup, note});
  };
  if (r.rank > 0) {
    row(split_text(*r.named), &*r.named, std::to_string(r.rank),
        best_tps > 0 ? fixed(100 * (best_tps / named_tps - 1), 2) : "", why_text(*r.named));
  } else {
    std::string key;
    for (const auto& k : r.key) key += (key.empty() ? "" : ",") + k;
    row(key, nullptr, "", "", "not valid (" + r.not_valid_rule + "): " + r.not_valid);
  }
  if (r.best && r.rank != 1) row(split_text(*r.best), &*r.best, "1", "", "");
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
  if (format == Format::kTable) {
    print_band_source(std::cout, band);
    std::cout << "distinguishable: whether the split's p10-p90 band of the objective misses rank 1's\n";
  }
}

}  // namespace ctwin::cli
