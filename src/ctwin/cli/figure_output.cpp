#include "ctwin/cli/figure_output.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"

extern char** environ;

namespace ctwin::cli {
namespace {

namespace fs = std::filesystem;

std::string lowercase_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// The last non-empty line of what the drawing printed: Python's own error or the module's message.
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last;
}

// Where the build put the package (PYTHONPATH=<build>/python imports it, as the tests do); an
// installed ctwin is on the interpreter's own path and needs nothing.
std::string figure_pythonpath() {
#ifdef CTWIN_PYTHON_BUILD_DIR
  std::error_code ignored;
  if (fs::exists(fs::path(CTWIN_PYTHON_BUILD_DIR) / "ctwin" / "figures" / "__main__.py", ignored)) {
    const char* current = std::getenv("PYTHONPATH");
    const std::string rest = current != nullptr && *current != '\0' ? ":" + std::string(current) : "";
    return std::string(CTWIN_PYTHON_BUILD_DIR) + rest;
  }
#endif
  const char* current = std::getenv("PYTHONPATH");
  return current != nullptr ? current : "";
}

struct Finished {
  int status = -1;
  std::string output;
};

Finished run_python(const std::string& python, const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    if (entry.rfind("PYTHONPATH=", 0) != 0 && entry.rfind("MPLBACKEND=", 0) != 0) env_text.push_back(entry);
  }
  env_text.push_back("PYTHONPATH=" + figure_pythonpath());
  env_text.emplace_back("MPLBACKEND=Agg");
  std::vector<char*> env;
  for (auto& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  std::vector<std::string> argv_text{python};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  Finished done;
  const int spawned = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return done;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return done;
  }
  done.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  std::ifstream in(log);
  done.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return done;
}

}  // namespace

std::string figure_help(const std::string& what) {
  return "draw " + what + " into FILE (.png or .svg) with the ctwin.figures Python module (docs/figures.md); "
         "needs /usr/bin/python3 with matplotlib";
}

void check_figure_path(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  if (ext != ".png" && ext != ".svg") {
    throw InputError("--figure", "", "'" + path + "' must end in .png or .svg");
  }
}

void write_figure(const std::string& kind, const nlohmann::json& report, const std::string& path) {
  check_figure_path(path);
  const char* chosen = std::getenv("CTWIN_PYTHON");
  const std::string python = chosen != nullptr && *chosen != '\0' ? chosen : "/usr/bin/python3";
  // One scratch folder per process, so that parallel commands never share a report file.
  const fs::path scratch = fs::temp_directory_path() / ("ctwin-figure-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  const fs::path data = scratch / "report.json";
  {
    std::ofstream out(data);
    out << json_text(report) << '\n';
  }
  const Finished done = run_python(python, {"-m", "ctwin.figures", kind, data.string(), path}, scratch / "log.txt");
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  if (done.status == 0) return;
  if (done.status < 0) throw InputError("--figure", "", path + ": needs Python 3 at " + python + " (not found)");
  const std::string why = last_line(done.output);
  if (why.find("No module named ctwin") != std::string::npos) {
    throw InputError("--figure", "", path + ": needs the ctwin Python module (build the ctwin_python_core target, or "
                                     "cmake --install); " + python + " found none");
  }
  if (why.empty()) throw InputError("--figure", "", path + ": drawing failed (exit " + std::to_string(done.status) + ")");
  // A package missing under ctwin itself (pandas, numpy) is Python's last traceback line.
  throw InputError("--figure", "", why.rfind(path + ": ", 0) == 0 ? why : path + ": " + why);
}

}  // namespace ctwin::cli
