// `ctwin --help` and every command's `--help` pinned to the byte (tests/unit/cli/command_help.txt):
// moving a command onto the {options, query, evaluate, printer} pattern (docs/extending.md) must
// not move a word of its help. The binary is run, not the table, so the pin is what a user sees.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "ctwin/cli/command_table.hpp"

namespace ctwin::cli {
namespace {

std::string every_help_text() {
  std::string text;
  const auto add = [&](const std::string& arguments) {
    const cli_testing::Outcome outcome = cli_testing::run_ctwin(arguments);
    // CLI11's usage line names the binary as it was called; the pin says `ctwin`.
    std::string output = outcome.output;
    const std::string called = CTWIN_BINARY;
    for (auto at = output.find(called); at != std::string::npos; at = output.find(called, at + 5)) {
      output.replace(at, called.size(), "ctwin");
    }
    text += "==> ctwin " + arguments + " (exit " + std::to_string(outcome.status) + ")\n" + output;
  };
  add("--help");
  for (const CommandEntry& entry : command_table()) add(std::string(entry.name) + " --help");
  return text;
}

TEST(CommandHelp, EveryCommandsHelpIsByteIdenticalToThePin) {
  const std::string pin_path = std::string(CTWIN_SOURCE_DIR) + "/tests/unit/cli/command_help.txt";
  std::ifstream pin(pin_path, std::ios::binary);
  ASSERT_TRUE(pin) << "missing " << pin_path;
  std::stringstream expected;
  expected << pin.rdbuf();
  const std::string actual = every_help_text();
  if (actual != expected.str()) {
    // Left beside the build for a diff; regenerate the pin only for an intended change of help.
    std::ofstream(std::filesystem::temp_directory_path() / "ctwin_command_help.actual.txt", std::ios::binary) << actual;
  }
  EXPECT_EQ(actual, expected.str()) << "help text drifted; see ctwin_command_help.actual.txt in the temporary directory";
  EXPECT_NE(actual.find("==> ctwin run --help (exit 0)"), std::string::npos);
}

}  // namespace
}  // namespace ctwin::cli
