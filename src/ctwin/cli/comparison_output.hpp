#pragma once
// The table and CSV of `ctwin validate`'s comparison rows, laid out by the mode's column list
// (validation/comparison.hpp), whose JSON rows the library writes from the same list.

#include <vector>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/output.hpp"

namespace ctwin::cli {

/// One table row per comparison row, the columns with a header in their order.
[[nodiscard]] Table comparison_table(const std::vector<api::ComparisonColumn>& columns,
                                     const std::vector<api::ComparisonRow>& rows);

}  // namespace ctwin::cli
