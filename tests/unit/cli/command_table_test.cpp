// The command table (cli/command_table.hpp): every entry adds the subcommand it names, in the
// table's order, once; a line whose function adds another name is caught.

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "ctwin/cli/command_table.hpp"

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

}  // namespace
}  // namespace ctwin::cli
