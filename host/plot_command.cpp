#include "plot_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace quatstep {
namespace {

namespace fs = std::filesystem;

/// python3 on the PATH, or "".
std::string find_python() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "python3";
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

/// Runs `argv` (argv[0] a path), stdout and stderr kept or sent to /dev/null; its exit status.
int spawn(const std::vector<std::string>& argv, bool quiet) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("cannot start " + argv[0]);
  if (pid == 0) {
    if (quiet && !freopen("/dev/null", "w", stderr)) _exit(126);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

std::string find_plot_script() {
  std::vector<fs::path> places;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    places.push_back(exe.parent_path() / ".." / "python" / "quatstep" / "plot.py");  // build/quatstep
    places.push_back(exe.parent_path() / ".." / "share" / "quatstep" / "plot.py");   // installed
  }
#ifdef QUATSTEP_SOURCE_DIR
  places.push_back(fs::path(QUATSTEP_SOURCE_DIR) / "python" / "quatstep" / "plot.py");
#endif
  std::string looked;
  for (const fs::path& p : places) {
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p).string();
    looked += "\n  " + p.lexically_normal().string();
  }
  throw std::runtime_error("cannot find python/quatstep/plot.py; looked at:" + looked);
}

int run_plot_script(const std::vector<std::string>& args) {
  const std::string script = find_plot_script();
  const std::string python = find_python();
  if (python.empty())
    throw std::runtime_error("plots need python3 (with matplotlib, h5py and numpy), and there is no python3 on the PATH");
  if (spawn({python, "-c", "import matplotlib, h5py, numpy"}, true) != 0)
    throw std::runtime_error(python + " lacks matplotlib, h5py or numpy, which " + script +
                             " needs: python3 -m pip install matplotlib h5py numpy");
  std::vector<std::string> argv = {python, script};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn(argv, false);
}

}  // namespace quatstep
