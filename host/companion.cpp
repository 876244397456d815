#include "companion.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace quatstep {

void exec_companion(const std::string& name, const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this executable's folder (/proc/self/exe): " + ec.message());
  const fs::path program = exe.parent_path() / name;
  if (!fs::is_regular_file(program, ec)) {  // a build folder (build/quatstep) holds CMakeCache.txt
    const fs::path folder = exe.parent_path();
    const std::string build = fs::is_regular_file(folder / "CMakeCache.txt", ec) ? folder.string() : "BUILD_FOLDER";
    throw std::runtime_error(program.string() + " is not built (it is a program of its own): cmake --build " + build +
                             " --target " + name + " (scripts/setup.sh --tests builds it)");
  }
  std::vector<std::string> argv = {program.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  execv(pointers[0], pointers.data());
  throw std::runtime_error("cannot start " + program.string() + ": " + std::strerror(errno));
}

}  // namespace quatstep
