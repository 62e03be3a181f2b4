// Megatron's pipeline layout syntax: repetition and groups expand as Megatron-Core's
// PipelineParallelLayerLayout reads them, and what ctwin cannot model is refused with the reason.

#include <gtest/gtest.h>

#include "ctwin/workload/pipeline_layout.hpp"

namespace ctwin::workload {
namespace {

TEST(PipelineLayout, RepetitionAndGroupsExpand) {
  const ParsedLayout layout = parse_pipeline_layout("Et*3|(tt|)*29L");
  ASSERT_FALSE(layout.error) << *layout.error;
  ASSERT_EQ(layout.layers.size(), 31u);
  EXPECT_EQ(layout.layers.front(), 3);
  for (std::size_t s = 1; s < 30; ++s) EXPECT_EQ(layout.layers[s], 2) << s;
  EXPECT_EQ(layout.layers.back(), 0);  // the loss alone
  const ParsedLayout nested = parse_pipeline_layout("E((t|)*2t*2|)*2L");
  ASSERT_FALSE(nested.error) << *nested.error;
  EXPECT_EQ(nested.layers, (std::vector<std::int64_t>{1, 1, 2, 1, 1, 2, 0}));  // Et|t|tt|t|t|tt|L
  EXPECT_EQ(parse_pipeline_layout("tttt").layers, std::vector<std::int64_t>{4});
}

TEST(PipelineLayout, RefusesWhatIsNotModelled) {
  const auto error_of = [](const std::string& text) { return parse_pipeline_layout(text).error.value_or("accepted"); };
  EXPECT_NE(error_of("Et*3|tm|L").find("MTP"), std::string::npos);
  EXPECT_NE(error_of("tE|tL").find("'E'"), std::string::npos);
  EXPECT_NE(error_of("Et|Lt").find("'L'"), std::string::npos);
  EXPECT_NE(error_of("Et*|tL").find("count"), std::string::npos);
  EXPECT_NE(error_of("E(t|tL").find("unclosed"), std::string::npos);
  EXPECT_NE(error_of("Et)|tL").find("unmatched"), std::string::npos);
  EXPECT_NE(error_of("Ex|tL").find("unknown layer 'x'"), std::string::npos);
  EXPECT_NE(error_of("(t*1000)*100000").find("expands to more than"), std::string::npos);
}

// 30,000 '(' overflowed the stack of the recursive expander (issue 36): nesting is bounded, and
// what Megatron writes (one or two levels) still expands.
TEST(PipelineLayout, DeepNestingIsRefusedNotRecursedInto) {
  const ParsedLayout deep = parse_pipeline_layout(std::string(30000, '(') + "t" + std::string(30000, ')'));
  ASSERT_TRUE(deep.error);
  EXPECT_NE(deep.error->find("nested deeper than 16"), std::string::npos) << *deep.error;
  const ParsedLayout sixteen = parse_pipeline_layout(std::string(16, '(') + "t" + std::string(16, ')'));
  EXPECT_FALSE(sixteen.error) << *sixteen.error;
}

}  // namespace
}  // namespace ctwin::workload
