#pragma once
// Which build options cost no more than another whatever the parts cost: where the catalog has no
// price for a part (a dragonfly's routers, most optics), capex cannot rank two builds, yet one
// that needs no more of any part than another costs no more at any prices. `size` marks such
// pairs so that a dragonfly and a fat tree of the same parts compare without a price list.

#include <cstddef>
#include <vector>

#include "ctwin/fabric/bill_of_materials.hpp"

namespace ctwin::api {

/// True when `a` needs at most as many of every part as `b` (its lines summed by part name, NICs a
/// server covers included): then a's capex is at most b's for every set of non-negative prices.
[[nodiscard]] bool needs_no_more_parts(const fabric::BillOfMaterials& a, const fabric::BillOfMaterials& b);

/// For each bill, the indices of the other bills it needs no more parts than, in index order.
/// A null bill (an option that was not built) takes part on neither side.
[[nodiscard]] std::vector<std::vector<std::size_t>> no_more_parts_than(
    const std::vector<const fabric::BillOfMaterials*>& bills);

}  // namespace ctwin::api
