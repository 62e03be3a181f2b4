#pragma once
// Build warnings (fabric/build_checks.hpp) as a front end shows them.

#include <iosfwd>
#include <string>
#include <vector>

#include "ctwin/api/public_fabric.hpp"

namespace ctwin::cli {

/// "\nwarnings\n  <check>: <message>\n    fix: <fix>\n" for each; nothing when there are none.
void print_warnings(std::ostream& out, const std::vector<fabric::BuildWarning>& warnings);

/// The checks' names joined by ';', for a table's column ("nic_above_pcie;nic_above_switch_port");
/// what each says is printed once below the table.
[[nodiscard]] std::string warning_checks(const std::vector<fabric::BuildWarning>& warnings);

}  // namespace ctwin::cli
