//===- TuneTest.cpp - --tune's candidates, choice and cache ---------------===//
#include "Driver/Tune.h"
#include "Runtime/TuneCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace gpumerge;

namespace {

RankedVersion version(std::array<std::int64_t, 2> Block,
                      std::array<std::int64_t, 2> Merge) {
  RankedVersion V;
  V.Shape.Block = Block;
  V.Shape.Merge = Merge;
  return V;
}

/// A cache file in a fresh directory, removed with it at the end.
struct TempCache {
  llvm::SmallString<128> Dir;
  std::string Path;
  explicit TempCache(const char *Name) {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tune-test", Dir));
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    Path = std::string(P);
  }
  ~TempCache() { llvm::sys::fs::remove_directories(Dir); }
};

/// Three candidates whose labels and codes differ; "slow", "fast", "bad".
struct Fake {
  std::vector<std::string> Labels = {"slow", "fast", "bad"};
  std::vector<double> Ms = {2.0, 1.0, 0.5};
  unsigned Measured = 0;

  TuneTrial generate(size_t I) const {
    TuneTrial T;
    T.Generated = true;
    T.Label = Labels[I];
    T.Code = "kernel " + Labels[I];
    return T;
  }
  /// The calls of the tuner's MeasureFn: each measures several.
  unsigned Calls = 0;
  void measureAll(llvm::ArrayRef<size_t> Indices, MeasuredFn Done) {
    ++Calls;
    for (size_t I : Indices)
      Done(I, measure(I));
  }
  llvm::Expected<VerifyResult> measure(size_t I) {
    ++Measured;
    VerifyResult R;
    R.Outcome = Labels[I] == "bad" ? VerifyResult::Status::Mismatch
                                   : VerifyResult::Status::Ok;
    R.Detail = "'c' differs first at element 3";
    R.Path = "optimized";
    if (R.Outcome == VerifyResult::Status::Ok)
      R.TimesMs.assign(7, Ms[I]);
    return R;
  }
};

TuneSubject subject() {
  TuneSubject S;
  S.Kernel = "mm";
  S.Source = "__global__ void mm(...) {}";
  S.Target = "h100";
  S.Sizes = "h=133,k=40,w=131";
  S.SpaceSize = 3;
  return S;
}

std::vector<TuneCandidate> threeCandidates() {
  std::vector<TuneCandidate> C(3);
  C[1].Merge.ThreadX = 2;
  C[2].Merge.ThreadX = 4;
  return C;
}

TuneOutcome run(const TuneOptions &O, Fake &F) {
  std::string Progress;
  llvm::raw_string_ostream P(Progress);
  return tuneKernel(
      O, subject(), threeCandidates(), [&](size_t I) { return F.generate(I); },
      [&](llvm::ArrayRef<size_t> I, MeasuredFn Done) { F.measureAll(I, Done); },
      P, false);
}

} // namespace

TEST(TuneCandidates, ModelChoiceFirstThenTheSpaceAsMergeRequests) {
  SearchSpace S;
  S.FromBlock = {32, 1};
  S.Versions = {version({32, 8}, {1, 4}), version({64, 4}, {2, 2}),
                version({48, 1}, {1, 1})}; // not a multiple: left out
  auto C = tuneCandidates(S, TextureForm::Ldg, 0);
  ASSERT_EQ(C.size(), 4u);
  EXPECT_TRUE(C[0].modelChoice());
  EXPECT_FALSE(C[1].modelChoice());
  EXPECT_EQ(C[1].Form, TextureForm::Ldg);
  EXPECT_FALSE(C[1].Merge.any());
  EXPECT_EQ(C[2].Merge.BlockX, 1);
  EXPECT_EQ(C[2].Merge.BlockY, 8);
  EXPECT_EQ(C[2].Merge.ThreadX, 1);
  EXPECT_EQ(C[2].Merge.ThreadY, 4);
  EXPECT_EQ(C[3].Merge.BlockX, 2);
  EXPECT_EQ(C[3].Merge.BlockY, 4);
  EXPECT_EQ(tuneCandidates(S, std::nullopt, 2).size(), 2u);
  // The model's own version is candidate 1 only.
  auto Rest = tuneCandidates(S, std::nullopt, 0, {32, 8}, {1, 4});
  ASSERT_EQ(Rest.size(), 2u);
  EXPECT_EQ(Rest[1].Merge.BlockX, 2);
  EXPECT_EQ(tuneCandidates(SearchSpace{}, std::nullopt, 6).size(), 1u);
}

// Measures on the OpenCL device's name (PoCL here), fake times: the fastest
// that matched wins, the mismatch is listed and never chosen, every
// measurement is in the cache, and a second tune measures nothing.
TEST(TuneKernel, FastestMatchingCandidateThenAWarmCache) {
  TempCache Temp("tune.jsonl");
  TuneOptions O;
  O.CachePath = Temp.Path;
  Fake F;
  TuneOutcome First = run(O, F);
  ASSERT_TRUE(First.Warnings.empty()) << First.Warnings.front();
  EXPECT_EQ(First.Chosen, 1);
  EXPECT_EQ(First.Timed, 3u);
  EXPECT_EQ(F.Measured, 3u);
  EXPECT_EQ(F.Calls, 1u); // every trial made, then all measured at once
  ASSERT_EQ(First.Mismatches.size(), 1u);
  EXPECT_NE(First.Mismatches[0].find("bad: 'c' differs"), std::string::npos);
  EXPECT_FALSE(First.KeptMismatch);
  auto Cache = TuneCache::open(O.CachePath);
  ASSERT_TRUE(bool(Cache));
  EXPECT_EQ(Cache->size(), 3u);

  Fake Again;
  TuneOutcome Warm = run(O, Again);
  EXPECT_EQ(Again.Measured, 0u);
  EXPECT_EQ(Again.Calls, 0u);
  EXPECT_EQ(Warm.Timed, 0u);
  EXPECT_EQ(Warm.Chosen, 1);
  EXPECT_EQ(*Warm.Report.getInteger("from_cache"), 3);
}

// One kernel text under two launch shapes is two versions, both timed (the
// text reads blockDim): only a repeat of label and text is skipped.
TEST(TuneKernel, SameTextOtherBlockIsAnotherVersion) {
  TempCache Temp("shapes.jsonl");
  TuneOptions O;
  O.CachePath = Temp.Path;
  Fake F;
  F.Labels = {"block 32x8", "block 32x1", "block 32x8"};
  F.Ms = {2.0, 1.0, 1.5};
  std::string Progress;
  llvm::raw_string_ostream P(Progress);
  auto Generate = [&](size_t I) {
    TuneTrial T = F.generate(I);
    T.Code = "the same kernel";
    return T;
  };
  TuneOutcome Out = tuneKernel(
      O, subject(), threeCandidates(), Generate,
      [&](llvm::ArrayRef<size_t> I, MeasuredFn Done) { F.measureAll(I, Done); },
      P, false);
  EXPECT_EQ(F.Measured, 2u); // the third repeats the first
  EXPECT_EQ(Out.Chosen, 1);
}

// Without the device: the records of the device with the most candidates
// measured ok decide; nothing is measured.
TEST(TuneKernel, ReadOnlyCacheTakesTheBestRecordedDevice) {
  TempCache Temp("recorded.jsonl");
  const std::string &Path = Temp.Path;
  {
    auto Cache = TuneCache::open(Path);
    ASSERT_TRUE(bool(Cache));
    Fake F;
    auto Put = [&](const std::string &Device, size_t I, double Ms) {
      TuneRecord R;
      R.Key.Device = Device;
      R.Key.Driver = "driver 1";
      R.Key.Source = contentHash(subject().Source + '\0' + "mm");
      R.Key.Target = "h100";
      R.Key.Sizes = "h=4096,k=4096,w=4096"; // not this run's: still taken
      R.Key.Candidate = "global " + F.Labels[I];
      R.Key.Code = contentHash(F.generate(I).Code);
      R.Key.Version = gpumergeVersion();
      R.TimesMs = {Ms};
      R.MedianMs = Ms;
      ASSERT_FALSE(bool(Cache->append(R)));
    };
    Put("gpu-a", 0, 3.0); // one record: outvoted
    Put("gpu-b", 0, 1.5);
    Put("gpu-b", 1, 2.5);
  }
  TuneOptions O;
  O.Measure = false;
  O.CachePath = Path;
  Fake F;
  TuneOutcome Out = run(O, F);
  EXPECT_EQ(F.Measured, 0u);
  EXPECT_EQ(Out.Chosen, 0);
  EXPECT_EQ(*Out.Report.getNumber("chosen_median_ms"), 1.5);
  EXPECT_EQ(*Out.Report.getInteger("from_cache"), 2);
  bool Missing = false;
  for (const std::string &L : Out.Lines)
    Missing |= L.find("3. bad: no record in the cache") != std::string::npos;
  EXPECT_TRUE(Missing);
}
