//===- Tune.cpp - --tune: time the model's first versions, keep the fastest ==//
#include "Driver/Tune.h"

#include "Runtime/Device.h"
#include "Runtime/TuneCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <mutex>

namespace gpumerge {

std::vector<TuneCandidate>
tuneCandidates(const SearchSpace &Space, std::optional<TextureForm> OtherForm,
               unsigned Limit, std::array<std::int64_t, 2> ModelBlock,
               std::array<std::int64_t, 2> ModelMerge) {
  std::vector<TuneCandidate> Out(1);
  if (OtherForm)
    Out.push_back({{}, OtherForm});
  for (const RankedVersion &V : Space.Versions) {
    if (Space.FromBlock[0] <= 0 || Space.FromBlock[1] <= 0 ||
        V.Shape.Block[0] % Space.FromBlock[0] ||
        V.Shape.Block[1] % Space.FromBlock[1])
      continue;
    if (V.Shape.Block == ModelBlock && V.Shape.Merge == ModelMerge)
      continue;
    TuneCandidate C;
    C.Merge.BlockX = V.Shape.Block[0] / Space.FromBlock[0];
    C.Merge.BlockY = V.Shape.Block[1] / Space.FromBlock[1];
    C.Merge.ThreadX = V.Shape.Merge[0];
    C.Merge.ThreadY = V.Shape.Merge[1];
    Out.push_back(C);
  }
  if (Limit && Out.size() > Limit)
    Out.resize(Limit);
  return Out;
}

namespace {

/// What every tune of one run shares: the cache file and the device, each
/// opened once (a batch tunes from several threads).
struct TuneState {
  std::mutex Lock;
  std::optional<TuneCache> Cache;
  std::string CacheError;
  std::vector<std::string> PendingWarnings; ///< the cache's, said once
  /// Each device asked for (kind, index): what it is, or why there is none.
  struct AskedDevice {
    std::optional<VerifyDevice> Device;
    std::string Error;
  };
  std::map<std::pair<DeviceKind, unsigned>, AskedDevice> Devices;
};

TuneState &stateFor(const std::string &Path) {
  static std::mutex Lock;
  static std::map<std::string, std::unique_ptr<TuneState>> States;
  std::lock_guard<std::mutex> G(Lock);
  auto &S = States[Path];
  if (!S) {
    S = std::make_unique<TuneState>();
    auto C = TuneCache::open(Path);
    if (C) {
      S->PendingWarnings = C->warnings();
      S->Cache = std::move(*C);
    } else {
      S->CacheError = llvm::toString(C.takeError());
    }
  }
  return *S;
}

/// The record of a candidate's verify-and-time run.
TuneRecord recordOf(llvm::Expected<VerifyResult> R) {
  TuneRecord Rec;
  if (!R) {
    Rec.Reason = llvm::toString(R.takeError());
    Rec.Status = llvm::StringRef(Rec.Reason).contains("does not build")
                     ? "compile-error"
                     : "launch-failure";
    return Rec;
  }
  Rec.MaxRelError = R->MaxRelError;
  Rec.PhaseSeconds = R->PhaseSeconds;
  if (R->Path == "fallback" && R->Outcome != VerifyResult::Status::Mismatch) {
    Rec.Status = "precondition";
    Rec.Reason = "the launcher runs the fallback at these sizes: " +
                 R->FailedPrecondition;
    return Rec;
  }
  switch (R->Outcome) {
  case VerifyResult::Status::Mismatch:
    Rec.Status = "mismatch";
    Rec.Reason = R->Detail;
    return Rec;
  case VerifyResult::Status::Skipped:
    Rec.Status = "unverified";
    Rec.Reason = R->Detail;
    return Rec;
  case VerifyResult::Status::Ok:
    break;
  }
  if (R->TimesMs.empty()) {
    Rec.Status = "launch-failure";
    Rec.Reason = "verified, but no timed run came back";
    return Rec;
  }
  Rec.TimesMs = R->TimesMs;
  Rec.MedianMs = KernelTimes{R->TimesMs}.median();
  return Rec;
}

std::string msText(double Ms) { return llvm::formatv("{0:f4} ms", Ms).str(); }

/// "; the 4 measured runs 9.8 s: inputs 1.2 s, device 2.0 s, ...": the
/// wall time of the candidates measured now, by phase
/// (VerifyResult::PhaseSeconds), in the order the runs took them; "" where
/// none was.
template <typename EntryT>
std::string timeSpent(const std::vector<EntryT> &Entries) {
  std::vector<std::pair<std::string, double>> Sum;
  unsigned Runs = 0;
  double Total = 0;
  for (const EntryT &E : Entries) {
    if (E.Record.PhaseSeconds.empty())
      continue;
    ++Runs;
    for (const auto &[Name, Seconds] : E.Record.PhaseSeconds) {
      auto It = llvm::find_if(Sum, [&](auto &P) { return P.first == Name; });
      if (It == Sum.end())
        It = Sum.insert(Sum.end(), {Name, 0.0});
      It->second += Seconds;
      Total += Seconds;
    }
  }
  if (!Runs)
    return "";
  std::string Text = llvm::formatv("; the {0} measured run{1} {2:f1} s:", Runs,
                                   Runs == 1 ? "" : "s", Total);
  for (const auto &[Name, Seconds] : Sum)
    Text += llvm::formatv(" {0} {1:f2} s,", Name, Seconds).str();
  Text.pop_back();
  return Text;
}

/// One candidate of a tune: its trial and the record of its run, measured
/// now or from the cache.
struct TuneEntry {
  size_t Index;
  TuneTrial Trial;
  TuneRecord Record;
  bool FromCache = false;
  std::vector<TuneRecord> Recorded; ///< without the device: every match
};

/// Tunes one kernel (tuneKernel): makes each candidate, takes its record
/// from the cache or measures it, and reports the fastest.
class KernelTuner {
public:
  KernelTuner(const TuneOptions &Opts, const TuneSubject &Subject,
              const std::vector<TuneCandidate> &Candidates,
              llvm::raw_ostream &Progress, bool ShowProgress)
      : Opts(Opts), Subject(Subject), Candidates(Candidates),
        Progress(Progress), ShowProgress(ShowProgress), Timing(Opts.Measure),
        State(stateFor(Opts.CachePath)),
        What(llvm::formatv("{0} ({1})", Subject.Kernel,
                           memoryVariantName(Subject.Variant))) {}

  TuneOutcome run(llvm::function_ref<TuneTrial(size_t)> Generate,
                  MeasureFn Measure);

private:
  bool openCacheAndDevice();
  void generate(llvm::function_ref<TuneTrial(size_t)> Generate);
  void addTrial(size_t I, TuneTrial Trial);
  void measure(MeasureFn Measure);
  void pickRecorded();
  const TuneRecord *listEntries(int Best);
  void summarize();
  void reportChoice(int Best, const TuneRecord *Model);
  void showProgressOf(const TuneEntry &E);

  int rank(size_t I) const {
    return int(Candidates[I].Rank ? Candidates[I].Rank : I + 1);
  }

  const TuneOptions &Opts;
  const TuneSubject &Subject;
  const std::vector<TuneCandidate> &Candidates;
  llvm::raw_ostream &Progress;
  const bool ShowProgress;
  const bool Timing;
  TuneState &State;
  const std::string What;
  TuneOutcome Out;
  std::optional<VerifyDevice> Device; // where the candidates are timed
  std::vector<TuneEntry> Entries;
  /// Each candidate's label and code, "" where none: a kernel text launched
  /// with another block is another version (conv's merged kernels read
  /// blockDim, so several blocks share one text).
  std::vector<std::string> Codes;
  std::map<size_t, std::string> LineOf; ///< candidate → its text line
  std::map<size_t, llvm::json::Object> ListedOf; ///< and its report
  unsigned Cached = 0;
  std::optional<double> BestMs; // so far, for the progress lines
  double GenerateSeconds = 0;   // the candidates' code, ptxas included
  /// The candidates the cache lacks: their entries, measured after every
  /// trial is made.
  std::map<size_t, size_t> Pending; // candidate → its entry
};

/// Takes the cache's pending warnings, and opens the device to time on
/// where the tune measures; false, with a warning, where either is missing.
bool KernelTuner::openCacheAndDevice() {
  std::lock_guard<std::mutex> G(State.Lock);
  for (const std::string &W : State.PendingWarnings)
    Out.Warnings.push_back("tune cache: " + W);
  State.PendingWarnings.clear();
  if (!State.Cache) {
    Out.Warnings.push_back("cannot tune " + What + ": " + State.CacheError);
    return false;
  }
  auto Key = std::make_pair(Opts.Device, Opts.DeviceIndex);
  if (Timing && !State.Devices.count(Key)) {
    auto D = verifyDevice(Opts.Device, Opts.DeviceIndex);
    if (D)
      State.Devices[Key].Device = *D;
    else
      State.Devices[Key].Error = llvm::toString(D.takeError());
  }
  if (Timing && !State.Devices[Key].Device) {
    Out.Warnings.push_back("cannot tune " + What + ": no device to run on (" +
                           State.Devices[Key].Error + ")");
    return false;
  }
  if (Timing)
    Device = State.Devices[Key].Device;
  return true;
}

void KernelTuner::showProgressOf(const TuneEntry &E) {
  const TuneRecord &Last = E.Record;
  if (Last.ok() && (!BestMs || Last.MedianMs < *BestMs))
    BestMs = Last.MedianMs;
  if (ShowProgress)
    Progress << llvm::formatv(
        "tune {0}: candidate {1} of {2}, {3}; best so far {4}\n", What,
        E.Index + 1, Candidates.size(),
        Last.ok() ? msText(Last.MedianMs) : Last.Status,
        BestMs ? msText(*BestMs) : "none");
}

/// Makes every candidate's trial, timing how long that takes.
void KernelTuner::generate(llvm::function_ref<TuneTrial(size_t)> Generate) {
  for (size_t I = 0; I < Candidates.size(); ++I) {
    auto Generating = std::chrono::steady_clock::now();
    TuneTrial Trial = Generate(I);
    GenerateSeconds += std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - Generating)
                           .count();
    addTrial(I, std::move(Trial));
  }
}

/// Adds candidate \p I's trial: an entry with its record from the cache,
/// or pending measurement; a line alone where it was not generated or is
/// an earlier candidate's version again.
void KernelTuner::addTrial(size_t I, TuneTrial Trial) {
  // Forced factors can give an earlier candidate's version again.
  std::string Identity = Trial.Label + '\0' + Trial.Code;
  size_t SameAs = llvm::find(Codes, Identity) - Codes.begin();
  Codes.push_back(Trial.Generated ? Identity : "");
  if (!Trial.Generated) {
    ListedOf[I] = llvm::json::Object{{"model_rank", rank(I)},
                                     {"status", "not-generated"},
                                     {"reason", Trial.Why}};
    LineOf[I] = llvm::formatv("  {0}. not generated: {1}", rank(I), Trial.Why);
    return;
  }
  if (SameAs < I) {
    LineOf[I] = llvm::formatv("  {0}. {1}: the same version as candidate {2}",
                              rank(I), Trial.Label, rank(SameAs));
    return;
  }
  TuneKey Key;
  Key.Source = contentHash(Subject.Source + '\0' + Subject.Kernel);
  Key.Target = Subject.Target;
  Key.Sizes = Subject.Sizes;
  Key.Candidate =
      std::string(memoryVariantName(Subject.Variant)) + " " + Trial.Label;
  Key.Code = contentHash(Trial.Code);
  Key.Version = gpumergeVersion();
  TuneEntry E{I, Trial, {}, false, {}};
  if (Timing) {
    Key.Device = Device->Name;
    Key.Driver = Device->Driver;
    bool Hit = false;
    {
      std::lock_guard<std::mutex> G(State.Lock);
      if (const TuneRecord *R = State.Cache->lookup(Key)) {
        E.Record = *R;
        Hit = true;
      }
    }
    if (Hit) {
      E.FromCache = true;
      ++Cached;
    } else {
      E.Record.Key = Key;
      Pending[I] = Entries.size();
    }
  } else {
    // A build without the device: the records of any device (and of any
    // sizes where none were given); one of them is picked below.
    std::lock_guard<std::mutex> G(State.Lock);
    for (const TuneRecord *R :
         State.Cache->lookupAnyDevice(Key, !Subject.SizesGiven))
      E.Recorded.push_back(*R);
    E.FromCache = true;
  }
  Entries.push_back(std::move(E));
  if (Entries.back().FromCache && Timing)
    showProgressOf(Entries.back());
}

/// Measures the candidates the cache lacks, recording each as it comes.
void KernelTuner::measure(MeasureFn Measure) {
  std::vector<size_t> ToMeasure;
  for (const auto &[I, At] : Pending)
    ToMeasure.push_back(I);
  if (ToMeasure.empty())
    return;
  Measure(ToMeasure, [&](size_t I, llvm::Expected<VerifyResult> R) {
    TuneEntry &E = Entries[Pending.at(I)];
    TuneKey Key = E.Record.Key;
    E.Record = recordOf(std::move(R));
    E.Record.Key = Key;
    E.Record.ModelRank = rank(I);
    Out.Timed += E.Record.Status != "precondition";
    {
      std::lock_guard<std::mutex> G(State.Lock);
      if (auto Err = State.Cache->append(E.Record))
        Out.Warnings.push_back("tune cache: " + llvm::toString(std::move(Err)));
      static unsigned Recorded = 0;
      if (Opts.DebugKillAfter && ++Recorded == Opts.DebugKillAfter)
        std::raise(SIGKILL);
    }
    showProgressOf(E);
  });
}

/// Without the device: one device and one set of sizes for all candidates,
/// the one with the most candidates measured ok (ties: the first in the
/// cache's order); each entry keeps its record of those, or is dropped.
void KernelTuner::pickRecorded() {
  using Group = std::pair<std::string, std::string>;
  auto GroupOf = [](const TuneRecord &R) {
    return Group{R.Key.Device + '\0' + R.Key.Driver, R.Key.Sizes};
  };
  std::vector<Group> Order;
  std::map<Group, unsigned> OkCount;
  for (const TuneEntry &E : Entries)
    for (const TuneRecord &R : E.Recorded) {
      Group G = GroupOf(R);
      if (!OkCount.count(G))
        Order.push_back(G);
      OkCount[G] += R.ok();
    }
  std::optional<Group> Chosen;
  for (const Group &G : Order)
    if (!Chosen || OkCount[G] > OkCount[*Chosen])
      Chosen = G;
  std::vector<TuneEntry> Kept;
  for (TuneEntry &E : Entries) {
    auto R = llvm::find_if(E.Recorded, [&](const TuneRecord &R) {
      return Chosen && GroupOf(R) == *Chosen;
    });
    if (R == E.Recorded.end()) {
      LineOf[E.Index] = llvm::formatv("  {0}. {1}: no record in the cache",
                                      rank(E.Index), E.Trial.Label);
      continue;
    }
    E.Record = *R;
    ++Cached;
    Kept.push_back(std::move(E));
  }
  Entries = std::move(Kept);
  if (!Entries.empty())
    Out.Report["recorded_sizes"] = Entries.front().Record.Key.Sizes;
}

/// Lists each entry in the report and its text line; \p Best is chosen.
/// Returns the record of the model's choice, nullptr where none ran.
const TuneRecord *KernelTuner::listEntries(int Best) {
  const TuneRecord *Model = nullptr;
  for (const TuneEntry &E : Entries) {
    llvm::json::Object C{{"candidate", E.Trial.Label},
                         {"model_rank", rank(E.Index)},
                         {"status", E.Record.Status},
                         {"from_cache", E.FromCache},
                         {"chosen", Best >= 0 && &E == &Entries[Best]}};
    if (E.Trial.Efficiency) {
      C["efficiency"] = *E.Trial.Efficiency;
      C["utilization"] = *E.Trial.Utilization;
      C["pareto_front"] = E.Trial.OnParetoFront;
    }
    std::string Line =
        llvm::formatv("  {0}. {1}: ", rank(E.Index), E.Trial.Label).str();
    if (E.Record.ok()) {
      C["median_ms"] = E.Record.MedianMs;
      C["times_ms"] = llvm::json::Array(E.Record.TimesMs);
      Line += "median " + msText(E.Record.MedianMs) + " of " +
              std::to_string(E.Record.TimesMs.size()) + " runs";
    } else {
      C["reason"] = E.Record.Reason;
      Line += E.Record.Status + " (" + E.Record.Reason + ")";
    }
    if (E.FromCache)
      Line += ", from the cache";
    if (!E.Record.PhaseSeconds.empty()) {
      llvm::json::Object Phases;
      for (const auto &[Name, Seconds] : E.Record.PhaseSeconds)
        Phases[Name] = Seconds;
      C["phases_s"] = std::move(Phases);
    }
    if (Candidates[E.Index].modelChoice())
      Model = &E.Record;
    if (E.Record.Status == "mismatch")
      Out.Mismatches.push_back(E.Trial.Label + ": " + E.Record.Reason);
    ListedOf[E.Index] = std::move(C);
    LineOf[E.Index] = Line;
  }
  return Model;
}

/// The report's totals and candidates, the head line, and each
/// candidate's line.
void KernelTuner::summarize() {
  Out.Report["cache"] = Opts.CachePath;
  if (Device) {
    Out.Report["device"] = Device->Name;
    Out.Report["driver"] = Device->Driver;
  }
  Out.Report["space"] = int64_t(Subject.SpaceSize);
  llvm::json::Array Listed;
  for (auto &[I, C] : ListedOf)
    Listed.push_back(std::move(C));
  Out.Report["candidates"] = std::move(Listed);
  Out.Report["timed"] = Out.Timed;
  Out.Report["from_cache"] = Cached;
  std::string Head = llvm::formatv(
      "tune {0}: {1} candidates of the {2} versions in its space; {3} "
      "timed, {4} from the cache{5}",
      What, Entries.size(), Subject.SpaceSize, Out.Timed, Cached,
      Device ? " (" + Device->Name + ")" : std::string());
  Out.Lines.push_back(Head);
  if (Timing)
    Out.Lines.push_back(llvm::formatv("tune {0}: generating the {1} "
                                      "candidates took {2:f1} s{3}",
                                      What, Candidates.size(), GenerateSeconds,
                                      timeSpent(Entries))
                            .str());
  Out.Report["generate_s"] = GenerateSeconds;
  for (auto &[I, Line] : LineOf)
    Out.Lines.push_back(Line);
}

/// The choice: entry \p Best, the fastest ok, against \p Model, the model's
/// choice's record; the model's choice kept where none ran ok.
void KernelTuner::reportChoice(int Best, const TuneRecord *Model) {
  if (Best < 0) {
    Out.KeptMismatch = Model && Model->Status == "mismatch";
    Out.Report["chosen"] = "the model's choice (no candidate was timed ok)";
    Out.Lines.push_back("tune " + What +
                        ": no candidate ran ok; the model's choice is kept");
    return;
  }
  const TuneEntry &B = Entries[Best];
  Out.Chosen = int(B.Index);
  Out.Report["chosen"] = B.Trial.Label;
  Out.Report["chosen_model_rank"] = rank(B.Index);
  Out.Report["chosen_median_ms"] = B.Record.MedianMs;
  std::string Versus;
  if (Model && Model->ok() && &B.Record != Model) {
    Out.Report["model_choice_median_ms"] = Model->MedianMs;
    Versus = llvm::formatv("; {0:f2}x the model's choice ({1})",
                           Model->MedianMs / B.Record.MedianMs,
                           msText(Model->MedianMs))
                 .str();
  }
  Out.Lines.push_back(llvm::formatv("tune {0}: chose {1} (model rank {2}), "
                                    "{3}{4}",
                                    What, B.Trial.Label, rank(B.Index),
                                    msText(B.Record.MedianMs), Versus));
}

TuneOutcome KernelTuner::run(llvm::function_ref<TuneTrial(size_t)> Generate,
                             MeasureFn Measure) {
  if (!openCacheAndDevice())
    return std::move(Out);
  generate(Generate);
  measure(Measure);
  if (!Timing)
    pickRecorded();
  int Best = -1; // into Entries: the fastest ok (ties: the model's rank)
  for (size_t I = 0; I < Entries.size(); ++I)
    if (Entries[I].Record.ok() &&
        (Best < 0 ||
         Entries[I].Record.MedianMs < Entries[Best].Record.MedianMs))
      Best = int(I);
  const TuneRecord *Model = listEntries(Best);
  summarize();
  reportChoice(Best, Model);
  return std::move(Out);
}

} // namespace

TuneOutcome tuneKernel(const TuneOptions &Opts, const TuneSubject &Subject,
                       const std::vector<TuneCandidate> &Candidates,
                       llvm::function_ref<TuneTrial(size_t)> Generate,
                       MeasureFn Measure, llvm::raw_ostream &Progress,
                       bool ShowProgress) {
  return KernelTuner(Opts, Subject, Candidates, Progress, ShowProgress)
      .run(Generate, Measure);
}

} // namespace gpumerge
