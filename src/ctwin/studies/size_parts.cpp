#include "ctwin/studies/size_parts.hpp"

#include <map>
#include <string>


namespace ctwin::api {
namespace {

std::map<std::string, long long> count_by_part(const fabric::BillOfMaterials& bill) {
  std::map<std::string, long long> counts;
  for (const fabric::BomLine& line : bill.lines) counts[line.part] += line.count;
  return counts;
}

bool dominated(const std::map<std::string, long long>& a, const std::map<std::string, long long>& b) {
  for (const auto& [part, count] : a) {
    const auto other = b.find(part);
    if (count > (other == b.end() ? 0 : other->second)) return false;
  }
  return true;
}

}  // namespace

bool needs_no_more_parts(const fabric::BillOfMaterials& a, const fabric::BillOfMaterials& b) {
  return dominated(count_by_part(a), count_by_part(b));
}

std::vector<std::vector<std::size_t>> no_more_parts_than(const std::vector<const fabric::BillOfMaterials*>& bills) {
  std::vector<std::map<std::string, long long>> counts;
  counts.reserve(bills.size());
  for (const auto* bill : bills) counts.push_back(bill ? count_by_part(*bill) : std::map<std::string, long long>{});
  std::vector<std::vector<std::size_t>> out(bills.size());
  for (std::size_t i = 0; i < bills.size(); ++i) {
    if (!bills[i]) continue;
    for (std::size_t j = 0; j < bills.size(); ++j) {
      if (j != i && bills[j] && dominated(counts[i], counts[j])) out[i].push_back(j);
    }
  }
  return out;
}

}  // namespace ctwin::api
