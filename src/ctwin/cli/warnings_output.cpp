#include "ctwin/cli/warnings_output.hpp"

#include <ostream>

namespace ctwin::cli {

void print_warnings(std::ostream& out, const std::vector<fabric::BuildWarning>& warnings) {
  if (warnings.empty()) return;
  out << "\nwarnings\n";
  for (const auto& warning : warnings) {
    out << "  " << warning.check << ": " << warning.message << "\n    fix: " << warning.fix << '\n';
  }
}

std::string warning_checks(const std::vector<fabric::BuildWarning>& warnings) {
  std::string text;
  for (const auto& warning : warnings) text += (text.empty() ? "" : ";") + warning.check;
  return text;
}

}  // namespace ctwin::cli
