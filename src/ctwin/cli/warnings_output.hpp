#pragma once
// Build warnings (fabric/build_checks.hpp) as a front end shows them.

#include <iosfwd>
#include <vector>

#include "ctwin/fabric/build_checks.hpp"

namespace ctwin::cli {

/// "\nwarnings\n  <check>: <message>\n    fix: <fix>\n" for each; nothing when there are none.
void print_warnings(std::ostream& out, const std::vector<fabric::BuildWarning>& warnings);

}  // namespace ctwin::cli
