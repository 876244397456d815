// Documentation that cannot drift from the code: docs/scenario.md is `quatstep docs scenario` and
// README.md's integrator table (between its markers) is `quatstep docs methods`, both printed from
// the tables the parser reads. Regenerate them with
//   build/quatstep docs scenario > docs/scenario.md
//   build/quatstep docs methods    (paste between <!-- methods:begin --> and <!-- methods:end -->)
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "docs.hpp"

namespace quatstep {
namespace {

std::string file(const std::string& path) {
  std::ifstream in(std::string(QUATSTEP_SOURCE_DIR) + "/" + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Docs, ScenarioFormatIsTheGeneratedOne) {
  std::ostringstream generated;
  print_scenario_format(generated);
  EXPECT_EQ(file("docs/scenario.md"), generated.str())
      << "docs/scenario.md is stale: build/quatstep docs scenario > docs/scenario.md";
}

TEST(Docs, ReadmeIntegratorTableIsTheGeneratedOne) {
  const std::string readme = file("README.md"), begin = "<!-- methods:begin -->\n", end = "<!-- methods:end -->";
  const auto a = readme.find(begin), b = readme.find(end);
  ASSERT_NE(a, std::string::npos) << "README.md has no " << begin;
  ASSERT_NE(b, std::string::npos) << "README.md has no " << end;
  std::ostringstream generated;
  print_method_table(generated);
  EXPECT_EQ(readme.substr(a + begin.size(), b - a - begin.size()), generated.str())
      << "README.md's integrator table is stale: paste `build/quatstep docs methods` between the markers";
}

}  // namespace
}  // namespace quatstep
