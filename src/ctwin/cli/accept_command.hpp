#pragma once
// `ctwin accept` (accept_command.cpp), declared apart from commands.hpp so that adding it does
// not touch the header every command includes.

#include "ctwin/cli/commands.hpp"

namespace ctwin::cli {

Action add_accept_command(CLI::App& app);

}  // namespace ctwin::cli
