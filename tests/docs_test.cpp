// Documentation that cannot drift from the code: docs/scenario.md is `quatstep docs scenario` and
// README.md's integrator table (between its markers) is `quatstep docs methods`, both printed from
// the tables the parser reads, and every docs/ page the generated text cites exists. Regenerate them with
//   build/quatstep docs scenario > docs/scenario.md
//   build/quatstep docs methods    (paste between <!-- methods:begin --> and <!-- methods:end -->)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
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

TEST(Docs, EveryPageTheKeysCiteExists) {
  // The keys' descriptions cite pages by path (`quatstep docs scenario`, Python's registry()); a
  // renamed page left them pointing at nothing (docs/livens.md, found 2026-12-04).
  std::ostringstream generated;
  print_scenario_format(generated);
  const std::string text = generated.str();
  const std::regex page(R"(docs/[A-Za-z0-9_.-]+\.md)");
  int cited = 0;
  for (auto m = std::sregex_iterator(text.begin(), text.end(), page); m != std::sregex_iterator(); ++m, ++cited)
    EXPECT_TRUE(std::filesystem::exists(std::string(QUATSTEP_SOURCE_DIR) + "/" + m->str()))
        << m->str() << ", cited by `quatstep docs scenario`, does not exist";
  EXPECT_GT(cited, 10);
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
