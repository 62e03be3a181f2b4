#pragma once
// --figure FILE.png|.svg: a command's report drawn by the ctwin.figures Python module, so that the
// command line and the notebooks share one drawing code (docs/figures.md).

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace ctwin::cli {

/// The --figure help text shared by every command that takes it.
[[nodiscard]] std::string figure_help(const std::string& what);

/// Checks, before any work, that `path` ends in .png or .svg; InputError naming --figure otherwise.
void check_figure_path(const std::string& path);

/// Draws `report` as figure `kind` (python3 -m ctwin.figures KIND REPORT OUT) into `path`. The
/// interpreter is $CTWIN_PYTHON or /usr/bin/python3; the module is the build tree's (beside this
/// binary's build) or the installed one. Any failure is an InputError naming --figure and `path`, with
/// the one line that says why (no Python, no matplotlib, no ctwin module).
void write_figure(const std::string& kind, const nlohmann::json& report, const std::string& path);

}  // namespace ctwin::cli
