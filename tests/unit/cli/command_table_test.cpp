// The command table (cli/command_table.hpp): every entry adds the subcommand it names, in the
// table's order, once; a line whose function adds another name is caught.

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/command_table.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::cli {
namespace {

TEST(CommandTable, EveryEntryAddsItsNamedSubcommandInOrder) {
  CLI::App app{"test"};
  const auto actions = register_commands(app);
  const auto added = app.get_subcommands({});
  ASSERT_EQ(added.size(), command_table().size());
  EXPECT_EQ(actions.size(), added.size());
  std::set<std::string> names;
  for (std::size_t i = 0; i < added.size(); ++i) {
    EXPECT_EQ(added[i]->get_name(), command_table()[i].name);
    EXPECT_FALSE(added[i]->get_description().empty()) << added[i]->get_name() << " has no help";
    EXPECT_TRUE(actions.at(added[i])) << added[i]->get_name() << " has no action";
    names.insert(added[i]->get_name());
  }
  EXPECT_EQ(names.size(), added.size());
  EXPECT_GE(added.size(), 18U);  // the commands of this tree; the table only grows
}

Action add_misnamed_command(CLI::App& app) {
  app.add_subcommand("other", "a table line whose function adds another command");
  return [] {};
}

TEST(CommandTable, AnEntryAddingAnotherNameIsCaught) {
  CLI::App app{"test"};
  const std::vector<CommandEntry> table{{"fabric", add_fabric_command}, {"misnamed", add_misnamed_command}};
  EXPECT_THROW((void)register_commands(app, table), std::logic_error);
}

// A command of the four parts (cli/command_pattern.hpp): the flag reaches the query, the query the
// evaluation, the result the printer; a bad flag stops it before the evaluation runs.
struct DoublerOptions {
  int value = 0;
};
struct DoublerCall {
  int value = 0;
};
int doubler_evaluations = 0;
std::string doubler_printed;

void declare_doubler(CLI::App& command, DoublerOptions& options) { command.add_option("--value", options.value, "a number"); }
DoublerCall doubler_call(const DoublerOptions& options) {
  if (options.value < 0) throw InputError("--value", "", "must not be negative");
  return DoublerCall{options.value};
}
int evaluate_doubler(const DoublerCall& call) {
  ++doubler_evaluations;
  return 2 * call.value;
}
void print_doubler(const int& result, const DoublerCall& call, const DoublerOptions& /*options*/) {
  doubler_printed = std::to_string(call.value) + " -> " + std::to_string(result);
}

TEST(CommandTable, AddCommandRunsQueryEvaluateAndPrinterInOrder) {
  const auto run = [](const char* value) {
    CLI::App app{"test"};
    const auto action = add_command(app, CommandParts<DoublerOptions, DoublerCall, int>{
                                             "double", "doubles a number", declare_doubler, doubler_call,
                                             evaluate_doubler, print_doubler});
    const char* argv[] = {"test", "double", "--value", value};
    app.parse(4, argv);
    action();
  };
  doubler_evaluations = 0;
  run("21");
  EXPECT_EQ(doubler_printed, "21 -> 42");
  EXPECT_EQ(doubler_evaluations, 1);
  doubler_printed.clear();
  EXPECT_THROW(run("-1"), InputError);
  EXPECT_EQ(doubler_evaluations, 1) << "a bad flag must fail before the evaluation";
  EXPECT_TRUE(doubler_printed.empty());
}

}  // namespace
}  // namespace ctwin::cli
