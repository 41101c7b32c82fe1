//===- RaceCheckRunTest.cpp - Which work-groups verify runs checked -------===//
//
// Runtime/RaceCheckRun.h: every work-group where the input was quick, the
// grid's corners and middle where it was not, none where even those would
// take too long. Runs that find races: test/Driver/verify-races.test.
//
//===----------------------------------------------------------------------===//
#include "Runtime/RaceCheckRun.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace {

NDRange range2D(std::size_t X, std::size_t Y, std::size_t LX, std::size_t LY) {
  NDRange R;
  R.Dims = 2;
  R.Global = {X, Y, 1};
  R.Local = {LX, LY, 1};
  return R;
}

TEST(RaceCheckRun, WorkGroupsRoundUp) {
  auto G = workGroups(range2D(1000, 33, 128, 16));
  ASSERT_TRUE(G);
  EXPECT_EQ(*G, (std::array<std::size_t, 3>{8, 3, 1}));
  NDRange Picked;
  Picked.Global = {100, 1, 1};
  EXPECT_FALSE(workGroups(Picked)); // the runtime picks the local size
}

TEST(RaceCheckRun, SampledAreTheCornersAndTheMiddleOnce) {
  using G = std::array<std::size_t, 3>;
  EXPECT_EQ(
      sampledWorkGroups({8, 3, 1}),
      (std::vector<G>{{0, 0, 0}, {7, 2, 0}, {7, 0, 0}, {0, 2, 0}, {4, 1, 0}}));
  // A row of groups: the first, the last, the middle.
  EXPECT_EQ(sampledWorkGroups({5, 1, 1}),
            (std::vector<G>{{0, 0, 0}, {4, 0, 0}, {2, 0, 0}}));
  EXPECT_EQ(sampledWorkGroups({1, 1, 1}), (std::vector<G>{{0, 0, 0}}));
}

TEST(RaceCheckRun, AllSomeOrNone) {
  RaceCheckInputs In;
  In.CheckedLaunches = {range2D(1024, 1024, 16, 16)}; // 4096 groups
  std::string Says;
  In.ReferenceSeconds = 0.05;
  EXPECT_EQ(planRaceCheck(In, Says), RaceCheckPlan::All);
  EXPECT_EQ(Says, "checked");
  // 5 of 4096 groups of an input that ran 2 s: 2.4 ms of it.
  In.ReferenceSeconds = 2;
  EXPECT_EQ(planRaceCheck(In, Says), RaceCheckPlan::Some);
  EXPECT_EQ(Says, "checked in 5 of 4096 work-groups (the corners of the grid "
                  "and its middle): the input ran 2.00 s, over the 0.10 s "
                  "the checks allow");
  // A --tune candidate: some, even where the input was quick.
  In.Timed = true;
  In.ReferenceSeconds = 0.01;
  EXPECT_EQ(planRaceCheck(In, Says), RaceCheckPlan::Some);
  EXPECT_NE(Says.find("a --tune candidate runs as emitted"), std::string::npos)
      << Says;
  In.Timed = false;
  // One group that ran 0.5 s: checking it is checking all.
  In.CheckedLaunches = {range2D(16, 16, 16, 16)};
  In.ReferenceSeconds = 0.5;
  EXPECT_EQ(planRaceCheck(In, Says), RaceCheckPlan::None);
  EXPECT_EQ(Says, "not checked: the input ran 0.50 s, over the 0.10 s the "
                  "checks allow, even in 1 of 1 work-groups (smaller --size)");
  // A helper that reads the grid position cannot run in a lone group.
  In.CheckedLaunches = {range2D(1024, 1024, 16, 16)};
  In.NotSampled = "'f' reads the grid position";
  EXPECT_EQ(planRaceCheck(In, Says), RaceCheckPlan::None);
  EXPECT_NE(Says.find("and 'f' reads the grid position"), std::string::npos)
      << Says;
}

} // namespace
